import { describe, expect, it } from 'vitest';
import { ALGORITHMS, ManualClock, RatelabError, type Algorithm } from '../../src/index.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

let prefixes = 0;
// On the server's real clock a window boundary could fall between two calls of a test and
// change its outcome; windows of 2^40 ms (about 35 years) make that practically impossible.
const LONG = 2 ** 40;
// These tests are about decisions, not time bounds: a patient timeout keeps a loaded
// machine from turning them into fail-open ones.
const PATIENT_MS = 5000;
const fresh = () => `t${prefixes++}:`;

describeRedis('createRedisLimiter on a real server', () => {
  const fixture = useRedisServer();

  describe.each(ALGORITHMS)('%s on the server clock (TIME)', (algorithm: Algorithm) => {
    it('admits the limit, then denies with a wait, and says Redis decided', async () => {
      const limiter = createRedisLimiter(
        algorithm,
        { limit: 3, windowMs: LONG },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
      );
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await limiter.consume('k'));
      expect(decisions.map((d) => [d.allowed, d.remaining, d.reason])).toEqual([
        [true, 2, 'redis'],
        [true, 1, 'redis'],
        [true, 0, 'redis'],
        [false, 0, 'redis'],
      ]);
      const denied = decisions[3]!;
      expect(denied.retryAfterMs).toBeGreaterThan(0);
      expect(denied.retryAfterMs).toBeLessThanOrEqual(LONG);
      expect(denied.resetMs).toBeGreaterThanOrEqual(denied.retryAfterMs);
    });

    it('expires the key after its state is back to full quota, never later than twice that', async () => {
      const limiter = createRedisLimiter(
        algorithm,
        { limit: 1_000_000, windowMs: 30 * 86_400_000 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
      );
      const decision = await limiter.consume('k', 5);
      const ttl = await fixture.redis.pttl(limiter.redisKey('k'));
      expect(ttl).toBeGreaterThan(0);
      // The state needs the key until it is full again; the buckets renew their TTL with
      // headroom (twice the need) so that busy keys do not rewrite it on every request.
      expect(ttl).toBeLessThanOrEqual(2 * Math.max(decision.resetMs, 1));
    });

    it('changes nothing when it denies (state and TTL)', async () => {
      const limiter = createRedisLimiter(
        algorithm,
        { limit: 2, windowMs: LONG },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
      );
      await limiter.consume('k', 2);
      const key = limiter.redisKey('k');
      const before = await fixture.redis.dump(key);
      const denied = await limiter.consume('k', 1);
      expect(denied.allowed).toBe(false);
      expect(await fixture.redis.dump(key)).toEqual(before);
    });

    it('denies a cost above what the policy can admit, forever, writing nothing', async () => {
      const limiter = createRedisLimiter(
        algorithm,
        { limit: 5, windowMs: 1000 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
      );
      const decision = await limiter.consume('k', 6);
      expect(decision).toMatchObject({ allowed: false, retryAfterMs: Infinity, remaining: 5, reason: 'redis' });
      expect(await fixture.redis.exists(limiter.redisKey('k'))).toBe(0);
    });

    it('starts a key afresh after reset', async () => {
      const limiter = createRedisLimiter(
        algorithm,
        { limit: 1, windowMs: LONG },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
      );
      await limiter.consume('k');
      expect((await limiter.consume('k')).allowed).toBe(false);
      await limiter.reset('k');
      expect((await limiter.consume('k')).allowed).toBe(true);
    });
  });

  it('keeps the sliding log to at most `limit` entries per key', async () => {
    const clock = new ManualClock(0);
    const limiter = createRedisLimiter(
      'sliding-log',
      { limit: 7, windowMs: 100 },
      { redis: fixture.redis, timeoutMs: PATIENT_MS, clock, prefix: fresh() },
    );
    for (let i = 0; i < 200; i++) {
      clock.advance(i % 3);
      await limiter.consume('k', 1 + (i % 4));
      expect(await fixture.redis.llen(limiter.redisKey('k'))).toBeLessThanOrEqual(7);
    }
  });

  it('never admits more after the clock steps back than it would have at the later time', async () => {
    for (const algorithm of ALGORITHMS) {
      const clock = new ManualClock(10_000);
      const limiter = createRedisLimiter(
        algorithm,
        { limit: 2, windowMs: 1000 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, clock, prefix: fresh() },
      );
      expect((await limiter.consume('k', 2)).allowed).toBe(true);
      clock.set(0); // ten seconds back: a refill or a new window must not follow from it
      expect((await limiter.consume('k', 1)).allowed).toBe(false);
    }
  });

  it('renews a token bucket TTL only when it no longer covers the time to full', async () => {
    const clock = new ManualClock(0);
    const limiter = createRedisLimiter(
      'token-bucket',
      { limit: 10, windowMs: 10_000 },
      { redis: fixture.redis, timeoutMs: PATIENT_MS, clock, prefix: fresh(), minTtlMs: 0 },
    );
    const key = limiter.redisKey('k');
    await limiter.consume('k'); // needs 1 s to refill: TTL 2 s
    expect(await fixture.redis.pttl(key)).toBeGreaterThan(1000);
    expect(await fixture.redis.pttl(key)).toBeLessThanOrEqual(2000);
    await fixture.redis.pexpire(key, 1_000_000); // a marker: a renewal would overwrite it
    await limiter.consume('k'); // needs 2 s: the 2 s set earlier still covers it
    expect(await fixture.redis.pttl(key)).toBeGreaterThan(2000);
    await limiter.consume('k'); // needs 3 s: renewed to 6 s
    expect(await fixture.redis.pttl(key)).toBeLessThanOrEqual(6000);
    expect(await fixture.redis.pttl(key)).toBeGreaterThan(4000);
  });

  it('sets a fixed window TTL once per window, not on every admission', async () => {
    const clock = new ManualClock(0);
    const limiter = createRedisLimiter(
      'fixed-window',
      { limit: 10, windowMs: 1000 },
      { redis: fixture.redis, timeoutMs: PATIENT_MS, clock, prefix: fresh(), minTtlMs: 0 },
    );
    const key = limiter.redisKey('k');
    await limiter.consume('k');
    expect(await fixture.redis.pttl(key)).toBeLessThanOrEqual(1000);
    await fixture.redis.pexpire(key, 5000); // a marker: a second PEXPIRE in this window would overwrite it
    clock.advance(300);
    await limiter.consume('k');
    expect(await fixture.redis.pttl(key)).toBeGreaterThan(1000);
    clock.advance(700); // the next window: its first admission sets the TTL again
    await limiter.consume('k');
    expect(await fixture.redis.pttl(key)).toBeLessThanOrEqual(1000);
  });

  it('runs again after SCRIPT FLUSH (EVALSHA falls back to EVAL on NOSCRIPT)', async () => {
    const limiter = createRedisLimiter(
      'token-bucket',
      { limit: 3, windowMs: 60_000 },
      { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
    );
    await limiter.consume('k');
    await fixture.redis.script('FLUSH');
    const after = await limiter.consume('k');
    expect(after).toMatchObject({ allowed: true, remaining: 1, reason: 'redis' });
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 0, reason: 'redis' });
  });

  describe('deny cache', () => {
    const evalCalls = async () => {
      const stats = await fixture.redis.info('commandstats');
      const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
      return calls('evalsha') + calls('eval');
    };

    it('denies a key known to be over its limit without asking Redis, until its wait is over', async () => {
      const clock = new ManualClock(0);
      const limiter = createRedisLimiter(
        'fixed-window',
        { limit: 2, windowMs: 1000 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, clock, prefix: fresh(), denyCache: true },
      );
      await limiter.consume('k', 2);
      const denied = await limiter.consume('k');
      expect(denied).toMatchObject({ allowed: false, retryAfterMs: 1000, reason: 'redis' });
      const calls = await evalCalls();
      clock.advance(400);
      expect(await limiter.consume('k')).toEqual({
        allowed: false,
        limit: 2,
        remaining: 0,
        retryAfterMs: 600,
        resetMs: 600,
        reason: 'deny-cache',
      });
      expect(await limiter.consume('k', 2)).toMatchObject({ allowed: false, reason: 'deny-cache' });
      expect(await evalCalls()).toBe(calls);
      clock.advance(600);
      expect(await limiter.consume('k')).toMatchObject({ allowed: true, reason: 'redis' });
    });

    it('asks Redis for a smaller cost than the one it cached a denial for', async () => {
      const clock = new ManualClock(0);
      const limiter = createRedisLimiter(
        'token-bucket',
        { limit: 10, windowMs: 10_000 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, clock, prefix: fresh(), denyCache: true },
      );
      await limiter.consume('k', 8);
      expect(await limiter.consume('k', 5)).toMatchObject({ allowed: false, reason: 'redis' });
      expect(await limiter.consume('k', 2)).toMatchObject({ allowed: true, reason: 'redis' });
    });
  });

  it('refuses bad options with the field named', () => {
    const make = (options: object) => () =>
      createRedisLimiter(
        'gcra',
        { limit: 1, windowMs: 1 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS, ...options },
      );
    expect(make({ failMode: 'local' })).toThrow(/expectedNodes/);
    expect(make({ failMode: 'sideways' })).toThrow(/failMode/);
    expect(make({ timeoutMs: 0 })).toThrow(/timeoutMs/);
    expect(make({ denyCache: { maxKeys: 0 } })).toThrow(RatelabError);
    expect(make({ batch: { maxKeys: 0 } })).toThrow(/batch\.maxKeys/);
    expect(make({ batch: { split: 'yes' } })).toThrow(/batch\.split/);
    expect(() =>
      createRedisLimiter(
        'sliding-log',
        { limit: 2 ** 21, windowMs: 1 },
        { redis: fixture.redis, timeoutMs: PATIENT_MS },
      ),
    ).toThrow(/sliding-counter/);
  });

  it('rejects a bad cost like the memory limiter', async () => {
    const limiter = createRedisLimiter(
      'gcra',
      { limit: 1, windowMs: 1 },
      { redis: fixture.redis, timeoutMs: PATIENT_MS, prefix: fresh() },
    );
    await expect(limiter.consume('k', -1)).rejects.toMatchObject({ code: 'INVALID_COST' });
    await expect(limiter.consume('k', 1.5)).rejects.toMatchObject({ code: 'INVALID_COST' });
  });
});
