// The Redis limiter's wait against a real redis-server (started by the test): the same
import { abortFirstOfTwoWaiters } from '../support/abort-wait.js';
// waiting as the memory limiter's (one generic module), asking Redis again at retryAfterMs
// plus 0-20% jitter. Order, counts and timers; no timing assertions.
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ManualClock, RatelabError } from '../../src/index.js';
import { createRedisLimiter, type RedisDecision } from '../../src/redis/redis-limiter.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

let prefixes = 0;
const fresh = () => `wait${prefixes++}:`;
// Decisions, not time bounds: a patient timeout keeps a loaded machine from failing open.
const PATIENT_MS = 5000;

/** Resolves once `check` holds, polling real time (Redis answers arrive as I/O). */
async function until(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 5) {
    if (waited > 5000) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

describeRedis('createRedisLimiter(...).wait on a real server', () => {
  const fixture = useRedisServer();

  describe('on the server clock', () => {
    const tenPerSecond = () =>
      createRedisLimiter(
        'token-bucket',
        { limit: 10, windowMs: 1000, burst: 1 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
      );

    it('concurrent waits resolve in call order, each decided by Redis', async () => {
      const limiter = tenPerSecond();
      const order: number[] = [];
      const decisions = await Promise.all(
        Array.from({ length: 4 }, (_, i) => limiter.wait('k').then((d) => (order.push(i), d))),
      );
      expect(order).toEqual([0, 1, 2, 3]);
      expect(decisions.map((d) => [d.allowed, d.reason])).toEqual(Array(4).fill([true, 'redis']));
    });

    it('maxWaitMs shorter than the wait rejects with WAIT_TOO_LONG after one call, without waiting', async () => {
      const limiter = tenPerSecond();
      await limiter.wait('k');
      const error = await limiter.wait('k', 1, { maxWaitMs: 20 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RatelabError);
      expect((error as RatelabError).code).toBe('WAIT_TOO_LONG');
    });

    it('a cost over capacity rejects at once, asking Redis nothing', async () => {
      const limiter = tenPerSecond();
      await expect(limiter.wait('k', 2)).rejects.toMatchObject({ code: 'COST_OVER_CAPACITY' });
      expect(await fixture.redis.exists(limiter.redisKey('k'))).toBe(0);
    });

    it('an aborted wait takes nothing and the next waiter goes first', async () => {
      const limiter = tenPerSecond();
      expect(await abortFirstOfTwoWaiters(limiter)).toEqual(['AbortError', 'next']);
      expect((await limiter.consume('k', 0)).remaining).toBe(0);
    });

    it('two processes (two limiters, two connections) waiting on one key: every wait is served, none over the limit', async () => {
      const prefix = fresh();
      const other = fixture.redis.duplicate();
      try {
        const policy = { limit: 20, windowMs: 1000, burst: 1 };
        const a = createRedisLimiter('token-bucket', policy, { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix });
        const b = createRedisLimiter('token-bucket', policy, { redis: other, timeoutMs: PATIENT_MS, prefix });
        const served: RedisDecision[] = await Promise.all([
          ...Array.from({ length: 4 }, () => a.wait('k')),
          ...Array.from({ length: 4 }, () => b.wait('k')),
        ]);
        expect(served.every((d) => d.allowed && d.reason === 'redis')).toBe(true);
        expect((await a.consume('k', 0)).remaining).toBe(0);
      } finally {
        other.disconnect();
      }
    });
  });

  describe('on a ManualClock (the clock option)', () => {
    it('waits resolve as the clock passes retryAfterMs plus at most 20% jitter, one timer per key, none once served', async () => {
      const clock = new ManualClock(0);
      const limiter = createRedisLimiter(
        'token-bucket',
        { limit: 10, windowMs: 1000, burst: 1 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh(), clock },
      );
      await limiter.wait('a');
      await limiter.wait('b');
      const served: string[] = [];
      for (const key of ['a', 'a', 'b']) void limiter.wait(key).then(() => served.push(key));
      await until(() => clock.pendingTimers === 2, 'one timer per waiting key');
      clock.advance(99);
      await sleep(20);
      expect(served).toEqual([]);
      // retryAfterMs is 100: the retry comes by 100 + 20% + 1 ms.
      clock.advance(22);
      await until(() => served.length === 2, 'the first waiter of each key');
      expect(served.sort()).toEqual(['a', 'b']);
      await until(() => clock.pendingTimers === 1, 'the timer of the key still waiting');
      clock.advance(121);
      await until(() => served.length === 3, 'the last waiter');
      expect(clock.pendingTimers).toBe(0);
    });
  });
});
