import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { Policy } from '../policy.js';

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
  const denied = { ...roundRobinSpec(10_000, 4), name: 'denied-half', what: '1e4 keys in turn at twice the limit: about half denied' };
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

/** The key strings of a workload: `key:0` ... */
export function workloadKeys(spec: WorkloadSpec): string[] {
  return Array.from({ length: spec.keys }, (_, i) => `key:${i}`);
}

/** The order in which keys are used: indices into {@link workloadKeys}, replayed cyclically. */
export function workloadSequence(spec: WorkloadSpec): Uint32Array {
  if (spec.pattern === 'round-robin') {
    const length = Math.max(spec.keys, BATCH);
    return Uint32Array.from({ length }, (_, i) => i % spec.keys);
  }
  return zipfSequence(spec.keys, ZIPF_EXPONENT, ZIPF_SEQUENCE, SEED);
}

/**
 * `length` draws of key ranks 0..n-1 with P(rank k) proportional to 1/(k+1)^s, from a seeded
 * generator (the same sequence on every run and machine).
 */
export function zipfSequence(n: number, s: number, length: number, seed: number): Uint32Array {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let k = 0; k < n; k++) {
    total += 1 / (k + 1) ** s;
    cumulative[k] = total;
  }
  const rng = xoroshiro128plus(seed);
  const out = new Uint32Array(length);
  for (let i = 0; i < length; i++) out[i] = firstAtLeast(cumulative, uniformFloat64(rng) * total);
  return out;
}

/** Index of the first entry of ascending `values` that is >= `target` (binary search). */
function firstAtLeast(values: Float64Array, target: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((values[mid] as number) >= target) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** 1 -> "1", 10000 -> "1e4", 1000000 -> "1e6", 25000 -> "25000". */
export function shortCount(n: number): string {
  const exponent = Math.log10(n);
  return n >= 1000 && Number.isInteger(exponent) ? `1e${exponent}` : String(n);
}
