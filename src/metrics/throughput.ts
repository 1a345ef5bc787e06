import { Bench } from 'tinybench';
import type { Decider, Contender } from '../sim/contender.js';
import type { Arrival } from '../traffic/arrival.js';

/** Options of {@link decisionsPerSecond}. */
export interface ThroughputOptions {
  /** Time budget of the measurement, ms (default 20; at least 5 iterations are run). */
  timeMs?: number;
}

/**
 * Decisions per second of `contender` on `arrivals` (a sample of a replay), measured with
 * tinybench through the real limiter code on a virtual clock. Each iteration replays the
 * whole sample through a fresh limiter (built outside the timed part), so the mix of
 * admits and denials is the replay's, and tinybench's per-call overhead (about one
 * decision's cost) is spread over the batch rather than added to each decision.
 * Reported from the median iteration. Undefined when the sample is empty.
 */
export async function decisionsPerSecond(contender: Contender, arrivals: readonly Arrival[], options: ThroughputOptions = {}): Promise<number | undefined> {
  const count = arrivals.length;
  if (count === 0) return undefined;
  const times = Float64Array.from(arrivals, (a) => a.t);
  const keys = arrivals.map((a) => a.key);
  const costs = Uint32Array.from(arrivals, (a) => a.cost);
  const time = { now: 0 };
  let limiter: Decider = await contender.create(() => time.now);
  const probe = limiter.consume(keys[0] as string, costs[0] as number);
  const asynchronous = typeof (probe as { then?: unknown } | null)?.then === 'function';
  if (asynchronous) await probe;

  const syncBatch = () => {
    for (let i = 0; i < count; i++) {
      time.now = times[i] as number;
      limiter.consume(keys[i] as string, costs[i] as number);
    }
  };
  const asyncBatch = async () => {
    for (let i = 0; i < count; i++) {
      time.now = times[i] as number;
      await limiter.consume(keys[i] as string, costs[i] as number);
    }
  };
  const bench = new Bench({ time: options.timeMs ?? 20, iterations: 5, warmupTime: 5, warmupIterations: 1 });
  bench.add(contender.name, asynchronous ? asyncBatch : syncBatch, {
    beforeEach: async () => {
      limiter = await contender.create(() => time.now);
    },
  });
  await bench.run();
  const result = bench.tasks[0]?.result;
  // The median iteration, not the mean: one descheduling on a busy machine would inflate the mean.
  if (!result || !('latency' in result) || !(result.latency.p50 > 0)) return undefined;
  return count / (result.latency.p50 / 1000);
}
