// Self-throttling retry clients (a retry source with `throttle`), against clients that
// retry on 429: the client-side throttle alone, then the built-in `throttled-clients`
// scenario through the replay, read per label (what the server saw, how long clients waited).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LabelMetrics } from '../../src/metrics/label-counts.js';
import type { KeySpec, RetrySourceSpec } from '../../src/scenario/scenario.js';
import { ClientThrottle } from '../../src/traffic/client-throttle.js';
import { Random } from '../../src/traffic/random.js';
import { createSource } from '../../src/traffic/stream.js';
import { builtinLabelMetrics } from '../support/builtin-labels.js';
import { inWindow } from '../support/oracles.js';

describe('ClientThrottle: reservations in want order', () => {
  it('never reserves more than limit units of a key in any window, and serves each key first come first served', () => {
    const want = fc.record({
      gap: fc.integer({ min: 0, max: 30 }),
      key: fc.constantFrom('a', 'b'),
      cost: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(
        fc.integer({ min: 3, max: 6 }),
        fc.integer({ min: 1, max: 50 }),
        fc.array(want, { minLength: 1, maxLength: 40 }),
        (limit, windowMs, wants) => {
          const throttle = new ClientThrottle(limit, windowMs);
          const taken = new Map<string, { at: number; cost: number }[]>();
          let t = 0;
          for (const { gap, key, cost } of wants) {
            t += gap;
            const at = throttle.reserve(key, cost, t);
            expect(at).toBeGreaterThanOrEqual(t);
            const log = taken.get(key) ?? [];
            // First come first served: never before an earlier want of the key.
            expect(at).toBeGreaterThanOrEqual(log.at(-1)?.at ?? -Infinity);
            log.push({ at, cost });
            taken.set(key, log);
            expect(inWindow(log, at, windowMs)).toBeLessThanOrEqual(limit);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a cost over the limit never fits', () => {
    expect(new ClientThrottle(2, 100).reserve('k', 3, 0)).toBe(Infinity);
  });
});

describe('a throttled retry source', () => {
  const spec: RetrySourceSpec = {
    kind: 'retry',
    keys: { count: 1, prefix: 'k', pick: 'round-robin', exponent: 1 },
    cost: 1,
    startMs: 0,
    endMs: 10_000,
    clients: 10,
    rampMs: 0,
    thinkMs: 10_000,
    jitter: 0,
    maxRetries: 5,
    throttle: { limit: 2, windowMs: 1000 },
  } satisfies RetrySourceSpec & { keys: KeySpec };

  it('sends each client’s request only when its throttle has a slot, two a second, in order, and says when it was wanted', () => {
    const source = createSource(spec, new Random(1));
    const sent = [];
    while (source.peek() < Infinity) {
      const arrival = source.take();
      sent.push([arrival.t, arrival.since]);
      source.react?.(arrival, true, 0);
    }
    expect(sent).toEqual([0, 0, 1000, 1000, 2000, 2000, 3000, 3000, 4000, 4000].map((t) => [t, 0]));
  });
});

describe('the built-in throttled-clients scenario', () => {
  const run = (algorithm: 'sliding-log' | 'token-bucket') => builtinLabelMetrics('throttled-clients', algorithm);

  it.each(['sliding-log', 'token-bucket'] as const)(
    '%s: the server is asked only for what it admits by throttled clients, many times more by retrying ones',
    async (algorithm) => {
      const labels = await run(algorithm);
      const throttled = labels.get('throttled') as LabelMetrics;
      const retrying = labels.get('retry-on-429') as LabelMetrics;
      expect(throttled.offered).toBe(throttled.admitted);
      expect(retrying.offered).toBeGreaterThan(10 * retrying.admitted);
      // The same work gets done: both tenants are held to 100/s (the bucket's first burst aside).
      expect(Math.abs(retrying.admitted - throttled.admitted)).toBeLessThanOrEqual(100);
    },
  );

  it('throttled clients wait their turn: every wait about the same (p99 within 10% of p50); retrying ones are a lottery (p99 several times p50)', async () => {
    const labels = await run('sliding-log');
    const throttled = labels.get('throttled')?.wait;
    const retrying = labels.get('retry-on-429')?.wait;
    expect(throttled && retrying).toBeTruthy();
    expect(throttled!.p99).toBeLessThanOrEqual(1.1 * throttled!.p50);
    expect(retrying!.p99).toBeGreaterThan(3 * Math.max(retrying!.p50, throttled!.p50));
  });
});
