// The Redis and approximate limiters' allow, wait and reset: the calls of AsyncRateLimiter
// that the memory limiter had and they did not (or answered with another type).
import { expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { createApproximateLimiter } from '../../src/redis/approximate-limiter.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

let prefixes = 0;
const fresh = () => `async${prefixes++}:`;
const PATIENT_MS = 5000;

describeRedis('the Redis limiter: allow and reset as the memory limiter has them', () => {
  const fixture = useRedisServer();

  it('allow is consume(key).allowed; reset says whether Redis held the key', async () => {
    const limiter = createRedisLimiter(
      'gcra',
      { limit: 1, windowMs: 2 ** 40 },
      { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
    );
    expect(await limiter.allow('k')).toBe(true);
    expect(await limiter.allow('k')).toBe(false);
    expect(await limiter.reset('k')).toBe(true);
    expect(await limiter.allow('k')).toBe(true);
    expect(await limiter.reset('never-seen')).toBe(false);
  });
});

describeRedis('the approximate limiter: allow, wait and reset', () => {
  const fixture = useRedisServer();
  const make = (clock: ManualClock) =>
    createApproximateLimiter(
      { limit: 2, windowMs: 1000 },
      { redis: fixture.redis, expectedNodes: 1, clock, prefix: fresh(), autoSync: false, timeoutMs: PATIENT_MS },
    );

  it('allow decides at once, like consume', () => {
    const limiter = make(new ManualClock(0));
    expect(limiter.algorithm).toBe('fixed-window');
    expect([limiter.allow('k'), limiter.allow('k'), limiter.allow('k')]).toEqual([true, true, false]);
  });

  it('reset forgets the key here and its shared count in Redis', async () => {
    const clock = new ManualClock(0);
    const limiter = make(clock);
    limiter.consume('k', 2);
    await limiter.sync();
    expect(limiter.allow('k')).toBe(false);
    expect(await limiter.reset('k')).toBe(true);
    expect(limiter.allow('k')).toBe(true);
    limiter.consume('k');
    await limiter.sync();
    // The count Redis held for the window went with the reset: the sync finds only what came after.
    expect(limiter.consume('k', 0).remaining).toBe(0);
    expect(await limiter.reset('never-seen')).toBe(false);
    limiter.close();
  });

  it('wait resolves once the next window frees the budget (on the limiter clock)', async () => {
    const clock = new ManualClock(0);
    const limiter = make(clock);
    limiter.consume('k', 2);
    const waited = limiter.wait('k');
    clock.advance(1000);
    expect(await waited).toMatchObject({ allowed: true, remaining: 1 });
    limiter.close();
  });
});
