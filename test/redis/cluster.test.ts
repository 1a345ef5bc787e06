import { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALGORITHMS, type LimitSpec } from '../../src/index.js';
import { hashSlot } from '../../src/redis/hash-slot.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { describeRedis } from '../support/describe-redis.js';
import { startRedisCluster, type RedisClusterHandle } from '../support/redis-server.js';

const KEYS = Array.from({ length: 30 }, (_, i) => `user-${i}`);
const LIMIT = 4;
const COMPOSITE: LimitSpec[] = [
  { name: 'burst', limit: 2, windowMs: 3_600_000 },
  { algorithm: 'sliding-log', limit: 3, windowMs: 3_600_000 },
];

describeRedis('Redis Cluster: 3 masters', () => {
  let cluster: RedisClusterHandle;
  let redis: Cluster;

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    redis = new Cluster(cluster.startupNodes.map(({ host, port }) => ({ host, port })));
  });
  afterAll(async () => {
    redis?.disconnect();
    await cluster?.stop();
  });

  it.each(ALGORITHMS)(
    '%s: keys spread over every master, no CROSSSLOT, each key held to its limit',
    async (algorithm) => {
      const limiter = createRedisLimiter(
        algorithm,
        { limit: LIMIT, windowMs: 3_600_000 },
        { redis, prefix: `cluster:${algorithm}:`, timeoutMs: 5000, failMode: 'closed' },
      );
      // Twice the limit on every key, all at once.
      const decisions = await Promise.all(
        KEYS.flatMap((key) =>
          Array.from({ length: 2 * LIMIT }, () => limiter.consume(key).then((d) => ({ key, ...d }))),
        ),
      );
      expect(decisions.every((d) => d.reason === 'redis')).toBe(true);
      for (const key of KEYS) expect(decisions.filter((d) => d.key === key && d.allowed)).toHaveLength(LIMIT);
      const perMaster = await Promise.all(
        redis.nodes('master').map((node) => node.keys(`cluster:${algorithm}:*`).then((keys) => keys.length)),
      );
      expect(perMaster).toHaveLength(3);
      expect(perMaster.every((count) => count > 0)).toBe(true);
      expect(perMaster.reduce((a, b) => a + b, 0)).toBe(KEYS.length);
    },
  );

  // Several limits on one key: keys of every shape a hash tag could trip on (plain, empty,
  // `}` first, an empty tag, an open brace, a tag of their own).
  const AWKWARD = [...Array.from({ length: 20 }, (_, i) => `user-${i}`), '', '}x', '{}', '{tenant-7}:user-1', 'a{b'];

  it("a key's limit keys are in one slot (Redis's own KEYSLOT agrees), on one master: no CROSSSLOT, each key held to its limits", async () => {
    const limiter = createRedisLimiter('fixed-window', COMPOSITE, {
      redis,
      prefix: 'cluster:composite:',
      timeoutMs: 5000,
      failMode: 'closed',
    });
    for (const key of AWKWARD) {
      const slots = await Promise.all(
        limiter.redisKeys(key).map((k) => redis.call('CLUSTER', 'KEYSLOT', k as string) as Promise<number>),
      );
      expect(new Set(slots).size, JSON.stringify(key)).toBe(1);
      expect(slots[0]).toBe(hashSlot(limiter.redisKey(key)));
    }
    const decisions = await Promise.all(
      AWKWARD.flatMap((key) => Array.from({ length: 4 }, () => limiter.consume(key).then((d) => ({ key, ...d })))),
    );
    expect(decisions.filter((d) => d.reason !== 'redis')).toEqual([]);
    for (const key of AWKWARD) expect(decisions.filter((d) => d.key === key && d.allowed)).toHaveLength(2);
    // Through the Cluster client a multi-key EXISTS goes to the slot's master; keys of two
    // slots would be refused with CROSSSLOT.
    for (const key of AWKWARD) expect(await redis.exists(...(limiter.redisKeys(key) as string[]))).toBe(2);
    const used = await Promise.all(
      redis.nodes('master').map((node) => node.keys('cluster:composite:*').then((keys) => keys.length)),
    );
    expect(used.every((count) => count > 0)).toBe(true);
    expect(used.reduce((a, b) => a + b, 0)).toBe(2 * AWKWARD.length);
  });
});
