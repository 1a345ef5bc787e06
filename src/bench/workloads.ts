import type { Policy } from '../core/policy.js';
import type { KeySpec } from '../scenario/scenario.js';
import { KeyPicker } from '../traffic/keys.js';
import { Random } from '../traffic/random.js';

/** Decisions per benchmark iteration: enough that tinybench's own per-call cost vanishes. */
export const BATCH = 1000;

/**
 * One traffic pattern of the benchmark, as plain data (it crosses into child processes).
 * Every subject replays the same `sequence` of keys against its own virtual clock, which
 * advances `stepMs` after each batch of {@link BATCH} decisions, under the same `policy`.
 */
export interface WorkloadSpec {
  name: string;
  /** What it stands for, for the report. */
  what: string;
  /** Distinct keys. */
  keys: number;
  pattern: 'round-robin' | 'zipf';
  policy: Policy;
  /** Virtual milliseconds per batch. */
  stepMs: number;
}

/** Offered load on the round-robin workloads, in requests per key per window. */
const VISITS_PER_WINDOW = 5;
/** The key mix of the Zipf workload: keys, and the exponent of popularity by rank. */
const ZIPF_KEYS = 100_000;
const ZIPF_EXPONENT = 1;
/** Keys drawn for the Zipf workload; the draw repeats after this many decisions. */
const ZIPF_SEQUENCE = 1 << 18;
const SEED = 20_171_999;

/**
 * The workloads of a run: one hot key; `keyCounts` keys in turn; a Zipf-like mix; and a mix
 * of admitted and denied decisions. `quick` keeps those the speed goals are about.
 *
 * Policies are chosen so the outcome is known: the hot key and the round-robin workloads
 * offer half the limit (everything is admitted by a correct limiter that reads the virtual
 * clock), `denied-half` offers twice the limit (about half denied), and under Zipf the
 * popular keys are mostly denied while the tail is admitted.
 */
export function workloadSpecs(keyCounts: readonly number[], quick: boolean): WorkloadSpec[] {
  const hot: WorkloadSpec = {
    name: 'hot-key',
    what: 'one key, every decision',
    keys: 1,
    pattern: 'round-robin',
    // 1,000 decisions per 4 ms = 250,000/s, half the limit.
    policy: { limit: 500_000, windowMs: 1000 },
    stepMs: 4,
  };
  const roundRobin = keyCounts.map((keys) => roundRobinSpec(keys, 1));
  if (quick) return [hot, ...roundRobin.slice(0, 1)];
  const zipf: WorkloadSpec = {
    name: `zipf-${shortCount(ZIPF_KEYS)}`,
    what: `${shortCount(ZIPF_KEYS)} keys, popularity ~ 1/rank (Zipf s=${ZIPF_EXPONENT}); hot keys denied, tail admitted`,
    keys: ZIPF_KEYS,
    pattern: 'zipf',
    policy: { limit: 2 * VISITS_PER_WINDOW, windowMs: 1000 },
    stepMs: 2,
  };
  const denied = {
    ...roundRobinSpec(10_000, 4),
    name: 'denied-half',
    what: '1e4 keys in turn at twice the limit: about half denied',
  };
  return [hot, ...roundRobin, zipf, denied];
}

/**
 * `keys` keys in turn, each offered `VISITS_PER_WINDOW * load` requests per window against a
 * limit of `2 * VISITS_PER_WINDOW`. The window is whole seconds (peers count in seconds).
 */
function roundRobinSpec(keys: number, load: number): WorkloadSpec {
  const batchesPerPass = keys / BATCH;
  const windowMs = 1000 * Math.max(1, Math.ceil((VISITS_PER_WINDOW * batchesPerPass) / 1000));
  const stepMs = Math.max(1, Math.round(windowMs / (VISITS_PER_WINDOW * load * batchesPerPass)));
  return {
    name: `keys-${shortCount(keys)}`,
    what: `${shortCount(keys)} keys in turn, half the limit`,
    keys,
    pattern: 'round-robin',
    policy: { limit: 2 * VISITS_PER_WINDOW, windowMs },
    stepMs,
  };
}

/**
 * Whether a correct limiter reading the virtual clock admits every call of `spec`: keys in
 * turn, each offered at most its limit per window. Peers run only these workloads: they read
 * wall time and are configured to admit every call, so on the others their outcome (and so
 * their work) would differ from the reference's.
 */
export function admitsEveryCall(spec: WorkloadSpec): boolean {
  const perKeyPerWindow = (BATCH / spec.keys) * (spec.policy.windowMs / spec.stepMs);
  return spec.pattern === 'round-robin' && perKeyPerWindow <= spec.policy.limit;
}

const KEY_PREFIX = 'key:';

/** The key strings of a workload: `key:0` ... (as the lab's key picker names them). */
export function workloadKeys(spec: WorkloadSpec): string[] {
  return Array.from({ length: spec.keys }, (_, i) => `${KEY_PREFIX}${i}`);
}

/**
 * The order in which keys are used: indices into {@link workloadKeys}, replayed cyclically,
 * drawn by the lab's own key picker (src/traffic) from a fixed seed, so every run and machine
 * replays the same sequence.
 */
export function workloadSequence(spec: WorkloadSpec): Uint32Array {
  const length = spec.pattern === 'zipf' ? ZIPF_SEQUENCE : Math.max(spec.keys, BATCH);
  return keySequence(
    { count: spec.keys, prefix: KEY_PREFIX, pick: spec.pattern, exponent: ZIPF_EXPONENT },
    length,
    SEED,
  );
}

/** `length` picks of key numbers by `keys` (round robin, uniform or Zipf), from `seed`. */
export function keySequence(keys: KeySpec, length: number, seed: number): Uint32Array {
  const picker = new KeyPicker(keys, new Random(seed));
  const out = new Uint32Array(length);
  for (let i = 0; i < length; i++) out[i] = picker.nextIndex();
  return out;
}

/** 1 -> "1", 10000 -> "1e4", 1000000 -> "1e6", 25000 -> "25000". */
export function shortCount(n: number): string {
  const exponent = Math.log10(n);
  return n >= 1000 && Number.isInteger(exponent) ? `1e${exponent}` : String(n);
}
