// The deadline heap of KeyWaiters holds the waiters still waiting with a finite maxWaitMs,
// no more: a served, aborted or rejected waiter leaves it at once, whatever its deadline. So
// the memory of wait() follows the queue, not the rate times maxWaitMs.
import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter, type Decision } from '../../src/index.js';
import { KeyWaiters } from '../../src/wait/key-waiters.js';

/** Lets promise reactions run (the clock fires timers synchronously). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A token bucket of 10 per second, burst 1 (one unit every 100 ms), and waiters over it on
 * a ManualClock, asking synchronously (as the memory and shared limiters do) or through a
 * promise (as the Redis and cluster limiters do).
 */
function setup(asking: 'sync' | 'async' = 'sync') {
  const clock = new ManualClock(0);
  const limiter = createLimiter('token-bucket', { limit: 10, windowMs: 1000, burst: 1 }, { clock });
  const consume = (key: string, cost: number) =>
    asking === 'sync' ? limiter.consume(key, cost) : Promise.resolve(limiter.consume(key, cost));
  const waiters = new KeyWaiters<Decision>(consume, { scheduler: clock, capacity: limiter.limits.capacity });
  let live = 0;
  const wait = (maxWaitMs: number, signal?: AbortSignal) => {
    live++;
    const settled = () => void live--;
    void waiters.wait('k', 1, { maxWaitMs, ...(signal ? { signal } : {}) }).then(settled, settled);
  };
  return { clock, limiter, waiters, wait, live: () => live };
}

describe('the deadline heap of wait()', () => {
  it('step by step: each waiter leaves the heap when served, aborted or found hopeless', async () => {
    const { clock, limiter, waiters, wait } = setup();
    const controller = new AbortController();
    limiter.consume('k');
    const steps: { do: () => void; entries: number; why: string }[] = [
      { do: () => wait(10_000), entries: 1, why: 'a waiter with a finite maxWaitMs enters the heap' },
      {
        do: () => wait(5_000, controller.signal),
        entries: 2,
        why: 'a second one, with an earlier deadline: it is on top',
      },
      {
        do: () => wait(150),
        entries: 3,
        why: 'a third that may still fit (it needs 200 ms, the first is served at 100)',
      },
      { do: () => wait(Infinity), entries: 3, why: 'no deadline: not in the heap' },
      {
        do: () => clock.advance(100),
        entries: 1,
        why: 'at 100 the first is served (deadline 10,000, deep in the heap) and the third is hopeless',
      },
      {
        do: () => controller.abort(),
        entries: 0,
        why: 'aborting takes the second out, though its deadline is far off',
      },
    ];
    for (const step of steps) {
      step.do();
      await flush();
      expect(waiters.deadlineEntries, step.why).toBe(step.entries);
    }
  });

  it.each(['sync', 'async'] as const)(
    'serving 2,000 waiters whose maxWaitMs differ keeps the heap at the live waiters (%s consume)',
    async (asking) => {
      const { clock, waiters, wait, live } = setup(asking);
      let most = 0;
      // Ten arrive per second, ten are served: a queue of about 20, each caller a little less
      // patient than the one before, so every served waiter has a later deadline than some still waiting.
      for (let i = 0; i < 20; i++) wait(1_000_000 - i);
      for (let i = 20; i < 2_000; i++) {
        wait(1_000_000 - i);
        clock.advance(100);
        await flush();
        expect(waiters.deadlineEntries).toBe(live());
        most = Math.max(most, waiters.deadlineEntries);
      }
      expect(most).toBeLessThanOrEqual(21);
    },
  );
});
