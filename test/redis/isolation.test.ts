import { Cluster, Redis } from 'ioredis';
import { createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../src/redis/client.js';
import { hashSlot } from '../../src/redis/hash-slot.js';
import { createRedisLimiter, type FailMode, type RedisDecision } from '../../src/redis/redis-limiter.js';
import type { RedisKey } from '../../src/redis/redis-key.js';
import { scriptClient, type RedisClient } from '../../src/redis/run-script.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';
import { askWhileStopped } from '../support/hung-master.js';
import { startRedisCluster, type RedisClusterHandle } from '../support/redis-server.js';

// Failures stay where they happen: a hung master affects only the keys it serves, a key
// holding unusable state affects only itself. Counts are asserted exactly; the one time
// bound is the limiter's contract (every call answers within timeoutMs), kept generous
// for a shared machine.
// 150 ms rather than the default 50: a healthy node must not look hung when this shared
// machine stalls the test process, which would open its breaker (fail-open admissions).
const TIMEOUT_MS = 150;
const BOUND_MS = TIMEOUT_MS + 250;
const LIMIT = 3;
const KEYS = Array.from({ length: 24 }, (_, i) => `user-${i}`);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describeRedis('a hung Cluster master affects only its own keys', () => {
  let cluster: RedisClusterHandle;
  let ioredis: Cluster;
  let nodeRedis: ReturnType<typeof createCluster>;

  beforeAll(async () => {
    // A node timeout longer than the pause: the cluster itself stays ok (with no replicas a
    // failed master would turn every master CLUSTERDOWN, which is a failure of all nodes).
    cluster = await startRedisCluster(3, { nodeTimeoutMs: 15_000 });
    ioredis = new Cluster(
      cluster.startupNodes.map(({ host, port }) => ({ host, port })),
      { redisOptions: boundedRedisOptions(1000) },
    );
    ioredis.on('error', () => {});
    await ioredis.ping();
    nodeRedis = createCluster({
      rootNodes: cluster.startupNodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    });
    nodeRedis.on('error', () => {});
    await nodeRedis.connect();
  });
  afterAll(async () => {
    for (const node of cluster?.nodes ?? []) node.resume();
    ioredis?.disconnect();
    nodeRedis?.destroy();
    await cluster?.stop();
  });

  describe.each([
    ['ioredis Cluster', 'open'],
    ['ioredis Cluster', 'closed'],
    ['node-redis createCluster', 'open'],
    ['node-redis createCluster', 'closed'],
  ] as [string, FailMode][])("%s, failMode '%s'", (label, failMode) => {
    it('stopping one of three masters for 3 s: no admission beyond the limit on the others, every call answered within timeoutMs', async () => {
      const redis: RedisClient = label.startsWith('ioredis') ? ioredis : nodeRedis;
      const prefix = `iso:${label}:${failMode}:`;
      const limiter = createRedisLimiter(
        'token-bucket',
        { limit: LIMIT, windowMs: 3_600_000 },
        { redis, prefix, timeoutMs: TIMEOUT_MS, failMode },
      );
      const nodeOf = (key: string) => scriptClient(redis).nodeOf(hashSlot(limiter.redisKey(key)));
      const stopped = nodeOf(KEYS[0] as string);
      const victim = cluster.nodes.find((node) => `${node.host}:${node.port}` === stopped);
      expect(victim).toBeDefined();
      const healthy = KEYS.filter((key) => nodeOf(key) !== stopped);
      expect(healthy.length).toBeGreaterThan(0);
      expect(healthy.length).toBeLessThan(KEYS.length);

      // Every key at its limit, by a twin with a generous timeout: the first calls on a busy
      // machine connect and load the script, which may take longer than 50 ms.
      const filler = createRedisLimiter(
        'token-bucket',
        { limit: LIMIT, windowMs: 3_600_000 },
        { redis, prefix, timeoutMs: 5000, failMode: 'closed' },
      );
      const filling = await Promise.all(
        KEYS.flatMap((key) => Array.from({ length: LIMIT }, () => filler.consume(key))),
      );
      expect(filling.every((d) => d.allowed && d.reason === 'redis')).toBe(true);

      const seen = await askWhileStopped(victim!, KEYS, (key) => limiter.consume(key), 3000);
      const onHealthy = seen.filter((t) => healthy.includes(t.key));
      const onStopped = seen.filter((t) => !healthy.includes(t.key));
      expect(onHealthy.length).toBeGreaterThan(100);
      expect(onHealthy.filter((t) => t.decision.allowed)).toHaveLength(0);
      expect(onHealthy.every((t) => t.decision.reason === 'redis')).toBe(true);
      expect(onStopped.every((t) => t.decision.reason === `fail-${failMode}`)).toBe(true);
      expect(Math.max(...seen.map((t) => t.ms))).toBeLessThan(BOUND_MS);

      // The stopped master's keys come back to Redis decisions (their breaker half-opens).
      let back: RedisDecision | undefined;
      for (let i = 0; i < 200 && back?.reason !== 'redis'; i++) {
        back = await limiter.consume(KEYS[0] as string);
        await sleep(20);
      }
      expect(back).toMatchObject({ reason: 'redis', allowed: false });
    }, 30_000);
  });
});

describeRedis('a key holding unusable state affects only itself', () => {
  const fixture = useRedisServer();

  it.each([
    ['a string that does not parse', (redis: Redis, key: RedisKey) => redis.set(key, 'garbage')],
    ['the wrong type (WRONGTYPE)', (redis: Redis, key: RedisKey) => redis.lpush(key, 'x')],
  ])('%s: the victim key stays exact, the poisoned key is reported, denied in closed mode', async (_label, poison) => {
    for (const [failMode, batch] of [
      ['open', true],
      ['closed', true],
      ['open', false],
      ['closed', false],
    ] as Array<[FailMode, boolean]>) {
      const prefix = `poison:${failMode}:${batch}:${_label.length}:`;
      const limiter = createRedisLimiter(
        'token-bucket',
        { limit: LIMIT, windowMs: 3_600_000 },
        { redis: fixture.redis, prefix, timeoutMs: 5000, failMode, batch },
      );
      await poison(fixture.redis, limiter.redisKey('poisoned'));
      // Both keys in the same batches, 10 rounds of 20 calls each.
      const decisions: Array<{ key: string; decision: RedisDecision }> = [];
      for (let round = 0; round < 10; round++) {
        const keys = Array.from({ length: 20 }, (_, i) => (i % 2 ? 'victim' : 'poisoned'));
        decisions.push(
          ...(await Promise.all(keys.map(async (key) => ({ key, decision: await limiter.consume(key) })))),
        );
      }
      const victim = decisions.filter((d) => d.key === 'victim').map((d) => d.decision);
      const poisoned = decisions.filter((d) => d.key === 'poisoned').map((d) => d.decision);
      expect(victim.every((d) => d.reason === 'redis')).toBe(true);
      expect(victim.filter((d) => d.allowed)).toHaveLength(LIMIT);
      expect(poisoned.every((d) => d.reason === 'key-error' && typeof d.error === 'string' && d.error.length > 0)).toBe(
        true,
      );
      expect(poisoned.filter((d) => d.allowed)).toHaveLength(failMode === 'open' ? poisoned.length : 0);
    }
  });

  it.each([true, false])('with repairKeys, a poisoned key is deleted and decided afresh (batch: %s)', async (batch) => {
    const limiter = createRedisLimiter(
      'fixed-window',
      { limit: LIMIT, windowMs: 3_600_000 },
      {
        redis: fixture.redis,
        prefix: `repair:${batch}:`,
        timeoutMs: 5000,
        failMode: 'closed',
        repairKeys: true,
        batch,
      },
    );
    await fixture.redis.set(limiter.redisKey('poisoned'), 'not a hash');
    const decisions = await Promise.all(Array.from({ length: 2 * LIMIT }, () => limiter.consume('poisoned')));
    expect(decisions.every((d) => d.reason === 'redis')).toBe(true);
    expect(decisions.filter((d) => d.allowed)).toHaveLength(LIMIT);
    expect(await fixture.redis.type(limiter.redisKey('poisoned'))).toBe('hash');
  });
});
