import type { Policy } from '../core/policy.js';
import type { Tape } from './batch-loop.js';

/**
 * A replay's sample of arrivals as a benchmark workload (what `ratelab compare` times), as
 * plain data (it crosses into child processes). The sample is replayed in laps, each
 * `periodMs` after the previous one, so every lap meets limiters that have forgotten the
 * last and decides as the replay did: the same keys, costs and mix of admits and denials.
 */
export interface SampleSpec {
  kind: 'sample';
  /** The scenario's name. */
  name: string;
  policy: Policy;
  /** Distinct keys, in order of first arrival. */
  keys: string[];
  /** Per arrival: its key's index in `keys`. */
  sequence: number[];
  /** Per arrival: its time, virtual ms. */
  times: number[];
  /** Per arrival: units it takes. */
  costs: number[];
  /** Shift of each lap, virtual ms: a whole number of windows. */
  periodMs: number;
}

/** The arrival fields a sample keeps. */
export interface SampledArrival {
  readonly t: number;
  readonly key: string;
  readonly cost: number;
}

/**
 * The sample workload of `arrivals` (in time order) under `policy` (what the reference
 * runs), enforced by `limits` (default: `policy` alone; a composite's limits, `policy` the
 * first). A lap is the sample's span plus a quiet stretch in which every algorithm forgets
 * it under every limit (a token bucket or GCRA refills `burst / limit` windows; a sliding
 * counter still weighs the previous window, so at least two), rounded up to a whole number
 * of every limit's window so fixed windows fall where they fell in the replay.
 */
export function sampleSpec(
  name: string,
  policy: Policy,
  arrivals: readonly SampledArrival[],
  limits: readonly Policy[] = [policy],
): SampleSpec {
  const index = new Map<string, number>();
  const sequence: number[] = [];
  for (const { key } of arrivals) {
    let at = index.get(key);
    if (at === undefined) {
      at = index.size;
      index.set(key, at);
    }
    sequence.push(at);
  }
  const first = arrivals[0]?.t ?? 0;
  const last = arrivals[arrivals.length - 1]?.t ?? 0;
  const quietMs = Math.max(...limits.map((limit) => forgetMs(limit)));
  const stride = commonWindow(limits);
  const periodMs = stride * Math.ceil((last - first + quietMs + 1) / stride);
  return {
    kind: 'sample',
    name,
    policy,
    keys: [...index.keys()],
    sequence,
    times: arrivals.map((a) => a.t),
    costs: arrivals.map((a) => a.cost),
    periodMs,
  };
}

/** How long after its last request every algorithm has forgotten a key under `limit`. */
function forgetMs(limit: Policy): number {
  return limit.windowMs * Math.max(2, Math.ceil((limit.burst ?? limit.limit) / limit.limit));
}

/**
 * The least whole multiple of every limit's window (their least common multiple, for whole
 * ms windows); the longest window when a window is not a whole number of ms.
 */
function commonWindow(limits: readonly Policy[]): number {
  const windows = limits.map((limit) => limit.windowMs);
  if (!windows.every((w) => Number.isSafeInteger(w))) return Math.max(...windows);
  return windows.reduce((common, w) => (common / greatestCommonDivisor(common, w)) * w);
}

function greatestCommonDivisor(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** The typed arrays the batch loop reads a sample from. */
export function sampleTape(spec: SampleSpec): { sequence: Uint32Array; tape: Tape } {
  return {
    sequence: Uint32Array.from(spec.sequence),
    tape: { times: Float64Array.from(spec.times), costs: Uint32Array.from(spec.costs), periodMs: spec.periodMs },
  };
}
