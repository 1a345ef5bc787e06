import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import type { LimitSpec } from '../../src/index.js';
import { createApproximateLimiter } from '../../src/redis/approximate-limiter.js';
import { boundedRedisOptions } from '../../src/redis/client.js';
import { createRedisLimiter, type RedisLimiterOptions } from '../../src/redis/redis-limiter.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';
import { expectRatelabError } from '../support/errors.js';
import { freePort } from '../support/redis-server.js';

const HOUR = 3_600_000;
// Windows of 2^40 ms (about 35 years): no refill or window edge between two calls of a test.
const LONG = 2 ** 40;
const TWO: LimitSpec[] = [
  { name: 'burst', limit: 2, windowMs: LONG },
  { algorithm: 'sliding-log', limit: 3, windowMs: LONG },
];
let prefixes = 0;
const fresh = () => `comp${prefixes++}:`;
const options = (
  redis: RedisLimiterOptions['redis'],
  extra: Partial<RedisLimiterOptions> = {},
): RedisLimiterOptions => ({
  redis,
  prefix: fresh(),
  timeoutMs: 5000,
  failMode: 'closed',
  ...extra,
});

async function scriptCalls(redis: Redis): Promise<number> {
  const stats = await redis.info('commandstats');
  return (
    Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0) +
    Number(/cmdstat_eval:calls=(\d+)/.exec(stats)?.[1] ?? 0)
  );
}

describeRedis('several limits on one Redis key', () => {
  const fixture = useRedisServer();

  it('keys: one for every limit but the sliding logs (packed, named by a digest of their policies and names), one per sliding log, the key in a {hash tag}; one limit keeps the single layout', () => {
    const list: LimitSpec[] = [
      { name: 'burst', limit: 2, windowMs: 1000 },
      { algorithm: 'sliding-log', limit: 3, windowMs: HOUR },
      { algorithm: 'fixed-window', name: 'daily', limit: 50, windowMs: 24 * HOUR },
    ];
    const composite = createRedisLimiter('token-bucket', list, options(fixture.redis, { prefix: 'p:' }));
    // The packed value's name: 12 hex digits of the SHA-1 of its limits' names, in order.
    const digest = createHash('sha1').update('tb2:2:1000:2:burst,fw:50:86400000:50:daily').digest('hex').slice(0, 12);
    expect(composite.redisKeys('user:42')).toEqual([`p:pack:${digest}{:user:42}`, 'p:log:3:3600000:3:1h{:user:42}']);
    expect(composite.redisKey('user:42')).toBe(`p:pack:${digest}{:user:42}`);
    const one = createRedisLimiter(
      'token-bucket',
      [{ limit: 2, windowMs: 1000 }],
      options(fixture.redis, { prefix: 'p:' }),
    );
    expect(one.redisKeys('user:42')).toEqual(['p:tb2:2:1000:2:user:42']);
  });

  it('a denial writes no limit; an admission writes every limit; reset deletes them all', async () => {
    const limiter = createRedisLimiter('token-bucket', TWO, options(fixture.redis));
    const keys = limiter.redisKeys('k');
    expect(await limiter.consume('k', 3)).toMatchObject({ allowed: false, retryAfterMs: Infinity, reason: 'redis' });
    expect(await fixture.redis.exists(...keys)).toBe(0);
    expect(await limiter.consume('k', 2)).toMatchObject({ allowed: true, remaining: 0, reason: 'redis' });
    expect(await fixture.redis.exists(...keys)).toBe(2);
    const before = await Promise.all(keys.map((key) => fixture.redis.dump(key)));
    expect(await limiter.consume('k', 1)).toMatchObject({ allowed: false, reason: 'redis' });
    expect(await Promise.all(keys.map((key) => fixture.redis.dump(key)))).toEqual(before);
    expect(await limiter.reset('k')).toBe(true);
    expect(await fixture.redis.exists(...keys)).toBe(0);
    expect(await limiter.reset('k')).toBe(false);
  });

  it("one limit's unusable key makes the whole decision a key error, writing no limit; repairKeys deletes it and decides afresh", async () => {
    const limiter = createRedisLimiter('token-bucket', TWO, options(fixture.redis));
    const [bucket, log] = limiter.redisKeys('k') as [string, string];
    await fixture.redis.set(log, 'not a list');
    const decision = await limiter.consume('k');
    expect(decision).toMatchObject({ allowed: false, reason: 'key-error' });
    expect(decision.error).toMatch(/WRONGTYPE/);
    expect(await fixture.redis.exists(bucket)).toBe(0);
    const repairing = createRedisLimiter('token-bucket', TWO, options(fixture.redis, { repairKeys: true }));
    const [, poisoned] = repairing.redisKeys('k') as [string, string];
    await fixture.redis.set(poisoned, 'not a list');
    expect(await repairing.consume('k')).toMatchObject({ allowed: true, remaining: 1, reason: 'redis' });
    expect(await fixture.redis.type(poisoned)).toBe('list');
  });

  it('every limit but the sliding logs in one value: a decision is one GET and one SET however many limits; its TTL covers the longest need; a value of another length is a key error, repaired with repairKeys', async () => {
    const list: LimitSpec[] = [
      { name: 'burst', limit: 2, windowMs: 1000 },
      { algorithm: 'gcra', limit: 10, windowMs: 60_000 },
      { algorithm: 'fixed-window', limit: 100, windowMs: HOUR },
      { algorithm: 'sliding-counter', limit: 1000, windowMs: 24 * HOUR },
    ];
    const limiter = createRedisLimiter('token-bucket', list, options(fixture.redis));
    const [packed] = limiter.redisKeys('k') as [string];
    expect(limiter.redisKeys('k')).toHaveLength(1);
    await limiter.consume('warm-up'); // caches the script
    await fixture.redis.config('RESETSTAT');
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, reason: 'redis' });
    const stats = await fixture.redis.info('commandstats');
    expect(/cmdstat_get:calls=(\d+)/.exec(stats)?.[1]).toBe('1');
    expect(/cmdstat_set:calls=(\d+)/.exec(stats)?.[1]).toBe('1');
    // The sliding counter's state is needed longest: until the end of the next day-long window.
    const ttl = await fixture.redis.pttl(packed);
    expect(ttl).toBeGreaterThan(24 * HOUR);
    expect(ttl).toBeLessThanOrEqual(48 * HOUR);
    await fixture.redis.set(packed, 'x'.repeat(7));
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, reason: 'key-error' });
    const repairing = createRedisLimiter('token-bucket', list, options(fixture.redis, { repairKeys: true }));
    const [poisoned] = repairing.redisKeys('k') as [string];
    await fixture.redis.set(poisoned, 'x'.repeat(7));
    expect(await repairing.consume('k')).toMatchObject({ allowed: true, remaining: 1, reason: 'redis' });
    expect(await fixture.redis.strlen(poisoned)).toBe(8 * 10);
    // A value of another type: WRONGTYPE, the same way.
    await fixture.redis.del(packed);
    await fixture.redis.rpush(packed, 'x');
    const wrongType = await limiter.consume('k');
    expect(wrongType).toMatchObject({ allowed: false, reason: 'key-error' });
    expect(wrongType.error).toMatch(/WRONGTYPE/);
    await fixture.redis.del(poisoned);
    await fixture.redis.rpush(poisoned, 'x');
    expect(await repairing.consume('k')).toMatchObject({ allowed: true, remaining: 1, reason: 'redis' });
    expect(await fixture.redis.strlen(poisoned)).toBe(8 * 10);
  });

  it("batched: one turn's composite decisions are one script call, each of their Redis keys counting toward maxKeys", async () => {
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    for (const [batch, calls] of [
      [{ split: false }, 1],
      [{ maxKeys: 4, split: false }, 5],
    ] as const) {
      const limiter = createRedisLimiter('token-bucket', TWO, options(fixture.redis, { batch }));
      await limiter.consume('warm-up'); // caches the script
      await fixture.redis.config('RESETSTAT');
      const decisions = await Promise.all(keys.map((key) => limiter.consume(key)));
      expect(await scriptCalls(fixture.redis)).toBe(calls);
      expect(decisions.every((d) => d.allowed && d.reason === 'redis' && d.limits?.length === 2)).toBe(true);
    }
  });

  it('the fail mode answers for the composite as a whole: a key error (open), Redis out of reach (closed)', async () => {
    const open = createRedisLimiter('token-bucket', TWO, options(fixture.redis, { failMode: 'open' }));
    await fixture.redis.set(open.redisKey('k'), 'x'.repeat(7));
    expect(await open.consume('k')).toMatchObject({ allowed: true, reason: 'key-error' });
    const dead = new Redis(`redis://127.0.0.1:${await freePort()}`, boundedRedisOptions());
    dead.on('error', () => undefined);
    const closed = createRedisLimiter(
      'token-bucket',
      TWO,
      options(dead, { failMode: 'closed', retryRedisAfterMs: 250 }),
    );
    expect(await closed.consume('k')).toMatchObject({ allowed: false, retryAfterMs: 250, reason: 'fail-closed' });
    dead.disconnect();
  });

  it("refuses a prefix whose { would split a key's limits over hash slots, and the approximate limiter refuses a list", () => {
    for (const prefix of ['app{', 'app{}:', 'a{b']) {
      expect(() => createRedisLimiter('token-bucket', TWO, options(fixture.redis, { prefix }))).toThrow(
        /^prefix: with several limits a '\{' must open a non-empty \{hash tag\}/,
      );
    }
    expect(
      createRedisLimiter('token-bucket', TWO, options(fixture.redis, { prefix: '{app}:' })).redisKeys('k'),
    ).toHaveLength(2);
    const refused = expectRatelabError(
      () => createApproximateLimiter(TWO as never, { redis: fixture.redis, expectedNodes: 2, autoSync: false }),
      'INVALID_POLICY',
      'policy',
    );
    expect(refused.message).toMatch(/^policy: the approximate limiter .* use createRedisLimiter for several limits/);
  });
});
