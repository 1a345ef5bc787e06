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
 * The sample workload of `arrivals` (in time order) under `policy`. A lap is the sample's
 * span plus a quiet stretch in which every algorithm forgets it (a token bucket or GCRA
 * refills `burst / limit` windows; a sliding counter still weighs the previous window, so
 * at least two), rounded up to whole windows so fixed windows fall where they fell in the
 * replay.
 */
export function sampleSpec(name: string, policy: Policy, arrivals: readonly SampledArrival[]): SampleSpec {
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
  const quietMs = policy.windowMs * Math.max(2, Math.ceil((policy.burst ?? policy.limit) / policy.limit));
  const periodMs = policy.windowMs * Math.ceil((last - first + quietMs + 1) / policy.windowMs);
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

/** The typed arrays the batch loop reads a sample from. */
export function sampleTape(spec: SampleSpec): { sequence: Uint32Array; tape: Tape } {
  return {
    sequence: Uint32Array.from(spec.sequence),
    tape: { times: Float64Array.from(spec.times), costs: Uint32Array.from(spec.costs), periodMs: spec.periodMs },
  };
}
