// limiter.wait on the system clock and real timers: issue 14's "done when". One timing
import { abortFirstOfTwoWaiters } from '../support/abort-wait.js';
// assertion, which the issue asks for (five sequential waits take 400 ms +- 60 ms); it is
// measured with performance.now and retried once, so a machine that stalls a moment (2
// cores shared by many test runs) does not fail it. Everything else checks order and counts.
import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { RatelabError, createLimiter, type Decision } from '../../src/index.js';

/** A token bucket of 10 per second, burst 1: one unit every 100 ms. */
const tenPerSecond = () => createLimiter('token-bucket', { limit: 10, windowMs: 1000, burst: 1 });

/** Whether `promise` has settled once the timers phase has had a turn (so: without waiting on any timer of its own). */
async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise<void>((resolve) => setImmediate(resolve));
  return settled;
}

describe('limiter.wait with a real clock (token bucket, 10 per second, burst 1)', () => {
  it('five sequential waits take 400 ms +- 60 ms', async () => {
    const fiveWaits = async () => {
      const limiter = tenPerSecond();
      const start = performance.now();
      for (let i = 0; i < 5; i++) await limiter.wait('k');
      return performance.now() - start;
    };
    let elapsed = await fiveWaits();
    if (Math.abs(elapsed - 400) > 60) elapsed = await fiveWaits();
    expect(elapsed).toBeGreaterThanOrEqual(340);
    expect(elapsed).toBeLessThanOrEqual(460);
  });

  it('ten concurrent waits resolve in call order', async () => {
    const limiter = tenPerSecond();
    const order: number[] = [];
    await Promise.all(Array.from({ length: 10 }, (_, i) => limiter.wait('k').then(() => order.push(i))));
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('an aborted wait takes nothing: the next waiter goes first, and only served waits took units', async () => {
    const limiter = tenPerSecond();
    const admitted: Decision[] = [];
    const consume = limiter.consume.bind(limiter);
    limiter.consume = (key, cost) => {
      const decision = consume(key, cost);
      if (decision.allowed) admitted.push(decision);
      return decision;
    };
    expect(await abortFirstOfTwoWaiters(limiter)).toEqual(['AbortError', 'next']);
    expect(admitted).toHaveLength(2);
    // The unit the next waiter took was the only one since the first: none is free now.
    expect(limiter.consume('k', 0).remaining).toBe(0);
  });

  it('maxWaitMs 50 on a wait that needs 100 ms rejects at once with WAIT_TOO_LONG', async () => {
    const limiter = tenPerSecond();
    await limiter.wait('k');
    const wait = limiter.wait('k', 1, { maxWaitMs: 50 });
    expect(await settledNow(wait)).toBe(true);
    const error = await wait.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RatelabError);
    expect((error as RatelabError).code).toBe('WAIT_TOO_LONG');
  });
});
