import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { hashSlot } from '../../src/redis/hash-slot.js';
import { describeRedis } from '../support/describe-redis.js';
import { failoverFigures, runFailover, type FailoverFigures, type FailoverPlan } from '../support/failover-run.js';
import { startRedisCluster, type RedisClusterHandle } from '../support/redis-server.js';
import { MASTER_NAME, startSentinelGroup, type SentinelGroup } from '../support/redis-sentinel.js';

// A master killed (SIGKILL) under several processes deciding on the same keys, with a
// replica that takes over: through Sentinels, and in a Cluster with a replica per master.
// What is asserted is behaviour: every call answers within its timeout (plus a loose margin
// for this shared machine: a bound on the library's timeout, not a speed), decisions come
// back through the promoted replica without restarting anything, NOSCRIPT on the replica
// (which never saw the scripts, then after a SCRIPT FLUSH) never reaches a caller, and
// whatever Redis admitted is accounted for. The figures (time in fail mode, to recovery,
// admitted beyond the limit) are printed, not asserted: bench/redis-failover.ts reruns them.
const TIMEOUT_MS = 100;
const BOUND_MS = TIMEOUT_MS + 400;
const LIMIT = 3000;
// Far beyond the run (windows are aligned to multiples of it since 1970), so no window
// ends mid-run and every admission counts against the same limit.
const WINDOW_MS = 10 * 365 * 86_400_000;
const KEYS = Array.from({ length: 6 }, (_, i) => `{failover}:user-${i}`);

function plansFor(base: Pick<FailoverPlan, 'sentinelUrl' | 'masterName' | 'sentinels' | 'clusterNodes' | 'prefix'>): FailoverPlan[] {
  const common = { ...base, algorithm: 'fixed-window' as const, limit: LIMIT, windowMs: WINDOW_MS, keys: KEYS, timeoutMs: TIMEOUT_MS, failMode: 'closed' as const, callsPerKey: 3, pauseMs: 1 };
  return [
    { ...common, client: 'ioredis' },
    { ...common, client: 'ioredis' },
    { ...common, client: 'node-redis' },
    { ...common, client: 'node-redis' },
  ];
}

function expectFailoverHeld(label: string, figures: FailoverFigures): void {
  // eslint-disable-next-line no-console
  console.log(`[failover] ${label}: ${JSON.stringify(figures)}`);
  expect(figures.slowestMs).toBeLessThan(BOUND_MS);
  expect(figures.failModeCalls).toBeGreaterThan(0);
  expect(Number.isFinite(figures.recoveryMs)).toBe(true);
  expect(figures.callsAfterFlush).toBeGreaterThan(0);
  expect(figures.failModeAfterFlush).toBe(0);
  // Whatever Redis admitted beyond the limit is what the promoted replica never received.
  expect(figures.overAdmitted).toBeLessThanOrEqual(figures.lostWrites);
}

const redisKeyOf = (prefix: string) => {
  const namer = createRedisLimiter('fixed-window', { limit: LIMIT, windowMs: WINDOW_MS }, { redis: { eval: async () => null, evalsha: async () => null, del: async () => 0 }, prefix });
  return (key: string) => namer.redisKey(key);
};

describeRedis('failover through Sentinel: a master, a replica, three Sentinels', () => {
  let group: SentinelGroup;

  beforeAll(async () => {
    group = await startSentinelGroup({ downAfterMs: 1000, failoverTimeoutMs: 3000 });
  }, 60_000);
  afterAll(async () => {
    await group?.stop();
  });

  it('SIGKILL of the master under 4 processes (2 ioredis via connectRedis, 2 node-redis createSentinel): bounded calls, decisions back through the promoted replica, NOSCRIPT never reaching a caller', async () => {
    const prefix = 'sentinel-failover:';
    const master = quiet(new Redis(group.master.url));
    const replica = quiet(new Redis(group.replica.url));
    try {
      const plans = plansFor({ prefix, sentinelUrl: group.url, masterName: MASTER_NAME, sentinels: group.sentinels.map(({ host, port }) => ({ host, port })) });
      const run = await runFailover(
        {
          master,
          kill: async () => {
            // The replica never ran the scripts: EVALSHA there answers NOSCRIPT.
            expect(await replica.info('errorstats')).not.toContain('NOSCRIPT');
            await group.master.kill();
          },
          promoted: async () => {
            const port = await group.waitPromoted(group.master.port);
            expect(port).toBe(group.replica.port);
            return replica;
          },
        },
        plans,
        { killAtCount: LIMIT / 2, redisKey: redisKeyOf(prefix) },
      );
      const figures = failoverFigures(run, KEYS.length, LIMIT);
      expectFailoverHeld('Sentinel', figures);
      expect(run.noscriptBeforeFlush).toBeGreaterThan(0);
      expect(run.noscriptAfterFlush).toBeGreaterThan(0);
    } finally {
      master.disconnect();
      replica.disconnect();
    }
  }, 90_000);
});

describeRedis('failover in a Cluster: 3 masters, a replica each', () => {
  let cluster: RedisClusterHandle;

  beforeAll(async () => {
    cluster = await startRedisCluster(3, { replicas: 1, nodeTimeoutMs: 1000 });
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  it('SIGKILL of the master serving the keys under 4 processes (2 ioredis Cluster, 2 node-redis createCluster): bounded calls, decisions back through the promoted replica', async () => {
    const prefix = 'cluster-failover:';
    const redisKey = redisKeyOf(prefix);
    const slot = hashSlot(redisKey(KEYS[0] as string));
    const admin = new Cluster(cluster.startupNodes.map(({ host, port }) => ({ host, port })));
    await admin.ping();
    const shards = (await admin.cluster('SHARDS')) as unknown[][];
    admin.disconnect();
    const { master, replica } = shardServing(shards, slot);
    const victim = cluster.nodes.find((node) => node.port === master);
    const heir = cluster.nodes.find((node) => node.port === replica);
    expect(victim).toBeDefined();
    expect(heir).toBeDefined();
    const masterClient = quiet(new Redis(victim!.url));
    const replicaClient = quiet(new Redis(heir!.url));
    try {
      const plans = plansFor({ prefix, clusterNodes: cluster.startupNodes.map(({ host, port }) => ({ host, port })) });
      const run = await runFailover(
        {
          master: masterClient,
          kill: async () => {
            expect(await replicaClient.info('errorstats')).not.toContain('NOSCRIPT');
            await victim!.kill();
          },
          promoted: async () => {
            for (;;) {
              if ((await replicaClient.info('replication')).includes('role:master')) return replicaClient;
              await new Promise((resolve) => setTimeout(resolve, 20));
            }
          },
        },
        plans,
        { killAtCount: LIMIT / 2, redisKey },
      );
      const figures = failoverFigures(run, KEYS.length, LIMIT);
      expectFailoverHeld('Cluster', figures);
      expect(run.noscriptBeforeFlush).toBeGreaterThan(0);
      expect(run.noscriptAfterFlush).toBeGreaterThan(0);
    } finally {
      masterClient.disconnect();
      replicaClient.disconnect();
    }
  }, 90_000);
});

/** `redis`, with its connection errors ignored: the test kills the server under it. */
function quiet(redis: Redis): Redis {
  redis.on('error', () => {});
  return redis;
}

/** The ports of the master serving `slot` and of its replica, from CLUSTER SHARDS. */
function shardServing(shards: unknown[][], slot: number): { master: number; replica: number } {
  for (const shard of shards) {
    const info = pairs(shard);
    const ranges = info.slots as number[];
    let serves = false;
    for (let i = 0; i < ranges.length; i += 2) if (slot >= Number(ranges[i]) && slot <= Number(ranges[i + 1])) serves = true;
    if (!serves) continue;
    const nodes = (info.nodes as unknown[][]).map(pairs);
    const master = nodes.find((node) => node.role === 'master');
    const replica = nodes.find((node) => node.role === 'replica');
    return { master: Number(master?.port), replica: Number(replica?.port) };
  }
  throw new Error(`no shard serves slot ${slot}`);
}

function pairs(list: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < list.length; i += 2) out[String(list[i])] = list[i + 1];
  return out;
}
