import { Cluster } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import { hashSlot } from '../../src/redis/hash-slot.js';
import { redisKeyOf } from '../../src/redis/redis-key.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { scriptClient, type RedisClient } from '../../src/redis/run-script.js';
import { describeRedis } from '../support/describe-redis.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisClusterHandle,
  type RedisServer,
} from '../support/redis-server.js';

// The same limiter through either client: node-redis v5 (createClient, createCluster) and
// ioredis (Redis, Cluster), against real servers.
const LIMIT = 4;
const KEYS = Array.from({ length: 30 }, (_, i) => `user-${i}`);
// Keys sharing a hash tag share a slot, so a Cluster batch can hold them all.
const TAGGED = Array.from({ length: 10 }, (_, i) => `{tenant-7}:user-${i}`);
// Keys that differ only in lone surrogates (sent as WTF-8 bytes: UTF-8 would make them all
// U+FFFD), in the hash tag too: each a key of its own, in the slot Redis computes for it.
const LONE = [
  'user\uD800',
  'user\uDBFF',
  'user\uDC00',
  'user\uFFFD',
  '{t\uD800}:a',
  '{t\uDC00}:a',
  '{t\uFFFD}:a',
  '{t\uD800}:b',
];

async function expectExact(redis: RedisClient, prefix: string, keys: readonly string[]): Promise<void> {
  for (const algorithm of ALGORITHMS) {
    const limiter = createRedisLimiter(
      algorithm,
      { limit: LIMIT, windowMs: 3_600_000 },
      { redis, prefix: `${prefix}:${algorithm}:`, timeoutMs: 5000, failMode: 'closed' },
    );
    const decisions = await Promise.all(
      keys.flatMap((key) => Array.from({ length: 2 * LIMIT }, () => limiter.consume(key).then((d) => ({ key, ...d })))),
    );
    expect(decisions.filter((d) => d.reason !== 'redis')).toEqual([]);
    for (const key of keys) expect(decisions.filter((d) => d.key === key && d.allowed)).toHaveLength(LIMIT);
    await limiter.reset(keys[0] as string);
    expect(await limiter.consume(keys[0] as string)).toMatchObject({ allowed: true, reason: 'redis' });
  }
}

describeRedis('node-redis v5 createClient', () => {
  let server: RedisServer;
  let client: ReturnType<typeof createClient>;
  beforeAll(async () => {
    server = await startRedisServer();
    client = createClient({ url: server.url });
    client.on('error', () => {});
    await client.connect();
  });
  afterAll(async () => {
    client?.destroy();
    await server?.stop();
  });

  it('every algorithm holds each key to its limit, batched, and reset works', async () => {
    await expectExact(client, 'nr', [...KEYS, ...LONE]);
  });

  it('falls back to EVAL after SCRIPT FLUSH, and reports a poisoned key alone', async () => {
    const limiter = createRedisLimiter(
      'gcra',
      { limit: 100, windowMs: 60_000 },
      { redis: client, prefix: 'nr-flush:', timeoutMs: 5000, failMode: 'closed' },
    );
    await client.scriptFlush();
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 99, reason: 'redis' });
    await client.hSet(limiter.redisKey('bad'), 'x', '1');
    const [bad, good] = await Promise.all([limiter.consume('bad'), limiter.consume('k')]);
    expect(bad).toMatchObject({ allowed: false, reason: 'key-error' });
    expect(bad.error).toMatch(/WRONGTYPE/);
    expect(good).toMatchObject({ allowed: true, remaining: 98, reason: 'redis' });
  });
});

describeRedis('Cluster clients of both libraries', () => {
  let cluster: RedisClusterHandle;
  let nodeRedis: ReturnType<typeof createCluster>;
  let ioredis: Cluster;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    nodeRedis = createCluster({
      rootNodes: cluster.startupNodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    });
    nodeRedis.on('error', () => {});
    await nodeRedis.connect();
    ioredis = new Cluster(cluster.startupNodes.map(({ host, port }) => ({ host, port })));
  });
  afterAll(async () => {
    nodeRedis?.destroy();
    ioredis?.disconnect();
    await cluster?.stop();
  });

  it("both clients' slot tables name the same node for a key (the per-node breakers' key)", async () => {
    await ioredis.ping(); // loads its slot table
    for (const key of KEYS) {
      const slot = hashSlot(key);
      const node = (ioredis.slots[slot] as string[])[0];
      expect(scriptClient(nodeRedis).nodeOf(slot)).toBe(node);
      expect(scriptClient(ioredis).nodeOf(slot)).toBe(node);
    }
  });

  it('the slot of a key sent as bytes is the one Redis computes (CLUSTER KEYSLOT)', async () => {
    for (const key of LONE) {
      const sent = redisKeyOf(key);
      expect(hashSlot(sent), JSON.stringify(key)).toBe(await ioredis.cluster('KEYSLOT', sent));
    }
  });

  describe.each([
    ['node-redis createCluster', (): RedisClient => nodeRedis],
    ['ioredis Cluster', (): RedisClient => ioredis],
  ])('%s', (_label, client) => {
    it('keys over every master and hash-tagged keys in one slot: each held to its limit', async () => {
      const slots = new Set(TAGGED.map(hashSlot));
      expect(slots.size).toBe(1);
      await expectExact(client(), `cl:${_label}`, [...KEYS, ...TAGGED, ...LONE]);
    });
  });
});
