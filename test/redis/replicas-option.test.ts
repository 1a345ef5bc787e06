import { Cluster, Redis } from 'ioredis';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../src/redis/client.js';
import { createRedisLimiter, type RedisLimiterOptions } from '../../src/redis/redis-limiter.js';
import { describeRedis } from '../support/describe-redis.js';
import { REPLICATE_AT_ONCE, startRedisServer, waitReplicasInSync, type RedisServer } from '../support/redis-server.js';

// `replicas: { wait, timeoutMs }`: WAIT after each script call. An admission no replica
// acknowledged in time is the fail mode's, never Redis's; denials (which write nothing)
// stay Redis's. test/redis/failover.test.ts shows what it prevents in a failover.
const POLICY = { limit: 5, windowMs: 3_600_000 };

describe('the replicas option is checked when the limiter is made', () => {
  const idle = { eval: async () => null, evalsha: async () => null, del: async () => 0 };
  const cluster = Object.assign(Object.create(Cluster.prototype) as object, { ...idle, slots: [] });
  it.each([
    ['wait 0', { wait: 0, timeoutMs: 10 }, 'replicas.wait'],
    ['a fractional wait', { wait: 1.5, timeoutMs: 10 }, 'replicas.wait'],
    ['timeoutMs 0 (WAIT 0 blocks for ever)', { wait: 1, timeoutMs: 0 }, 'replicas.timeoutMs'],
    ["timeoutMs not below the limiter's", { wait: 1, timeoutMs: 50 }, 'replicas.timeoutMs'],
    ['not an object', 1, 'replicas'],
  ])('%s: INVALID_ARGUMENT naming the field', (_label, replicas, field) => {
    expect(() =>
      createRedisLimiter('gcra', POLICY, { redis: idle, timeoutMs: 50, replicas } as unknown as RedisLimiterOptions),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field }));
  });
  it("a Cluster client: INVALID_ARGUMENT (a keyless WAIT would not reach the key's master)", () => {
    expect(() =>
      createRedisLimiter('gcra', POLICY, { redis: cluster as never, replicas: { wait: 1, timeoutMs: 10 } }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT', field: 'replicas' }));
  });
});

describeRedis('WAIT after each script call, on a master with one replica', () => {
  let master: RedisServer;
  let replica: RedisServer;
  let ioredis: Redis;
  let nodeRedis: ReturnType<typeof createClient>;

  beforeAll(async () => {
    master = await startRedisServer(REPLICATE_AT_ONCE);
    replica = await startRedisServer(['--replicaof', master.host, String(master.port)]);
    await waitReplicasInSync([replica], 1);
    ioredis = new Redis(master.url, boundedRedisOptions());
    ioredis.on('error', () => {});
    await new Promise((resolve) => ioredis.once('ready', resolve));
    // In sync is not yet acknowledging: wait for the replica's first acknowledgement.
    await ioredis.set('wait:ready', '1');
    for (let attempt = 0; attempt < 50 && (await ioredis.wait(1, 200)) < 1; attempt++);
    nodeRedis = createClient({ url: master.url });
    nodeRedis.on('error', () => {});
    await nodeRedis.connect();
  });
  afterAll(async () => {
    replica?.resume();
    ioredis?.disconnect();
    nodeRedis?.destroy();
    await replica?.stop();
    await master?.stop();
  });

  describe.each([
    ['ioredis', () => ioredis],
    ['node-redis', () => nodeRedis],
  ] as const)('%s', (label, client) => {
    it.each([true, false])(
      "acknowledged admissions are Redis decisions; with the replica stopped they are the fail mode's, denials stay Redis's (batch: %s)",
      async (batch) => {
        const limiter = createRedisLimiter('fixed-window', POLICY, {
          redis: client(),
          prefix: `wait:${label}:${batch}:`,
          timeoutMs: 2000,
          failMode: 'closed',
          batch,
          replicas: { wait: 1, timeoutMs: 500 },
          retryRedisAfterMs: 1,
        });
        const acknowledged = await Promise.all([1, 2, 3].map(() => limiter.consume('k')));
        expect(acknowledged.map((d) => [d.allowed, d.reason])).toEqual([
          [true, 'redis'],
          [true, 'redis'],
          [true, 'redis'],
        ]);
        replica.pause();
        try {
          const unacknowledged = await limiter.consume('k');
          expect(unacknowledged).toMatchObject({ allowed: false, reason: 'fail-closed' });
          // The script did run: the unacknowledged admission is counted (over-counted, never
          // under-counted), so the key has 1 unit left, and a denial needs no replica.
          await new Promise((resolve) => setTimeout(resolve, 5));
          expect(await limiter.consume('k', 2)).toMatchObject({ allowed: false, remaining: 1, reason: 'redis' });
        } finally {
          replica.resume();
        }
      },
    );
  });
});
