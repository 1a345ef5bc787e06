import { Cluster } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { describeRedis } from '../support/describe-redis.js';
import { startRedisCluster, type RedisClusterHandle } from '../support/redis-server.js';

const KEYS = Array.from({ length: 30 }, (_, i) => `user-${i}`);
const LIMIT = 4;

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
});
