import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, createLimiter } from '../../src/index.js';
import { MetricsRecorder } from '../../src/metrics/recorder.js';
import { Fleet } from '../../src/sim/distributed/fleet.js';
import { Random } from '../../src/traffic/random.js';
import { fleet } from './helpers.js';

const policy = { limit: 5, windowMs: 100 };
/** Sorted arrivals over a few keys, some at the same millisecond. */
const arrivals = fc
  .array(
    fc.record({
      gap: fc.integer({ min: 0, max: 30 }),
      key: fc.constantFrom('a', 'b', 'c'),
      cost: fc.integer({ min: 1, max: 3 }),
    }),
    { maxLength: 300 },
  )
  .map((steps) => {
    let t = 0;
    return steps.map(({ gap, key, cost }) => ({ t: (t += gap), key, cost }));
  });

function decisions(
  fleetOptions: ReturnType<typeof fleet>,
  list: { t: number; key: string; cost: number }[],
  seed = 7,
): boolean[] {
  const time = { now: 0 };
  const cluster = new Fleet(fleetOptions, policy, () => time.now, new Random(seed, 1));
  return list.map(({ t, key, cost }) => {
    time.now = t;
    return cluster.consume(key, cost).allowed;
  });
}

describe('Fleet', () => {
  it('central decides exactly as one limiter of the same algorithm, whatever the nodes and the balance', () => {
    fc.assert(
      fc.property(
        arrivals,
        fc.constantFrom(...ALGORITHMS),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom('even' as const, 'skewed' as const),
        (list, algorithm, nodes, balance) => {
          const time = { now: 0 };
          const single = createLimiter(algorithm, policy, { clock: () => time.now });
          const expected = list.map(({ t, key, cost }) => {
            time.now = t;
            return single.consume(key, cost).allowed;
          });
          expect(decisions(fleet({ strategy: 'central', algorithm, nodes, balance }), list)).toEqual(expected);
        },
      ),
    );
  });

  it('with one node, sync and local-split decide exactly as the oracle (the sliding log)', () => {
    fc.assert(
      fc.property(
        arrivals,
        fc.constantFrom('sync' as const, 'local-split' as const),
        fc.integer({ min: 1, max: 200 }),
        (list, strategy, syncMs) => {
          const allowed = decisions(fleet({ strategy, nodes: 1, syncMs }), list);
          const recorder = new MetricsRecorder({ limit: policy.limit, windowMs: policy.windowMs, bucketMs: 100 });
          list.forEach(({ t, key, cost }, i) => recorder.record(t, key, cost, allowed[i] as boolean));
          expect(recorder.result()).toMatchObject({ falseAdmits: 0, falseDenials: 0 });
        },
      ),
    );
  });

  it('adds the round trip to every central decision, the timeout to every one in an outage, and nothing to local decisions', () => {
    const list = Array.from({ length: 100 }, (_, i) => ({ t: i * 10, key: 'k', cost: 1 }));
    const outage = { startMs: 200, endMs: 300 };
    const measure = (strategy: 'central' | 'sync' | 'local-split') => {
      const time = { now: 0 };
      const cluster = new Fleet(
        fleet({ strategy, rttMs: 2, timeoutMs: 50, outage }),
        policy,
        () => time.now,
        new Random(1, 1),
      );
      for (const { t, key, cost } of list) {
        time.now = t;
        cluster.consume(key, cost);
      }
      return { latency: cluster.addedLatency(), outage: cluster.outageCounts() };
    };
    expect(measure('central')).toEqual({
      latency: { meanMs: (90 * 2 + 10 * 50) / 100, p99Ms: 50 },
      outage: { offered: 10, admitted: 10 },
    });
    expect(measure('sync').latency).toEqual({ meanMs: 0, p99Ms: 0 });
    expect(measure('local-split')).toEqual({ latency: { meanMs: 0, p99Ms: 0 }, outage: { offered: 0, admitted: 0 } });
  });
});
