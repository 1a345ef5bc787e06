/**
 * The two failovers of the tests and bench, set up and run (./failover-run.ts does the
 * run): `failoverThroughSentinel(group)`, a master and its replica watched by three
 * Sentinels, and `failoverInCluster(cluster)`, the master serving the keys in a Cluster
 * with a replica per master. Four processes each, two ioredis and two node-redis, deciding
 * on the same keys with a fixed window whose limit the run reaches after the failover.
 */
import { Cluster, Redis } from 'ioredis';
import { hashSlot } from '../../src/redis/hash-slot.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import type { RedisKey } from '../../src/redis/redis-key.js';
import { runFailover, type FailoverPlan, type FailoverRun } from './failover-run.js';
import type { RedisClusterHandle } from './redis-server.js';
import { MASTER_NAME, type SentinelGroup } from './redis-sentinel.js';

/** The limiter's timeout in the deciding processes, ms. */
export const FAILOVER_TIMEOUT_MS = 100;
/** Admissions per key the run reaches (half before the kill). */
export const FAILOVER_LIMIT = 3000;
// Far beyond the run (windows are aligned to multiples of it since 1970), so no window
// ends mid-run and every admission counts against the same limit.
const WINDOW_MS = 10 * 365 * 86_400_000;
/** One hash slot for all of them, so on a Cluster one master serves every key. */
export const FAILOVER_KEYS = Array.from({ length: 6 }, (_, i) => `{failover}:user-${i}`);

type Where = Pick<FailoverPlan, 'sentinelUrl' | 'masterName' | 'sentinels' | 'clusterNodes' | 'prefix'>;

function plansFor(where: Where, replicas?: FailoverPlan['replicas']): FailoverPlan[] {
  const common = {
    ...where,
    ...(replicas === undefined ? {} : { replicas }),
    algorithm: 'fixed-window' as const,
    limit: FAILOVER_LIMIT,
    windowMs: WINDOW_MS,
    keys: FAILOVER_KEYS,
    timeoutMs: FAILOVER_TIMEOUT_MS,
    failMode: 'closed' as const,
    callsPerKey: 3,
    pauseMs: 1,
  };
  return [
    { ...common, client: 'ioredis' },
    { ...common, client: 'ioredis' },
    { ...common, client: 'node-redis' },
    { ...common, client: 'node-redis' },
  ];
}

/** How the processes' limiter names a key in Redis (a limiter with a client that is never called). */
function redisKeyOf(prefix: string): (key: string) => RedisKey {
  const idle = { eval: async () => null, evalsha: async () => null, del: async () => 0 };
  const namer = createRedisLimiter(
    'fixed-window',
    { limit: FAILOVER_LIMIT, windowMs: WINDOW_MS },
    { redis: idle, prefix },
  );
  return (key) => namer.redisKey(key);
}

/** A run, and whether the replica had answered NOSCRIPT before the kill (it never ran the scripts: it should not have). */
export type Failover = FailoverRun & { replicaNoscriptBeforeKill: boolean };

/**
 * How a Sentinel run differs: the limiter's `replicas` option (then the old master is
 * restarted empty as a replica of the promoted one once the promotion is done, or WAIT 1
 * would have no replica to count); and `replicaLagMs`, the replica cut off for this many
 * ms before the kill.
 */
export interface SentinelRunOptions {
  replicas?: FailoverPlan['replicas'];
  replicaLagMs?: number;
}

/**
 * Kills the group's master under the four processes; the Sentinels must promote its
 * replica. With `replicaLagMs`, the replica is stopped (SIGSTOP) and its link closed by
 * the master (CLIENT KILL TYPE replica) that long before the kill, and resumed after it:
 * the admissions of those ms never reach it, as with a replica lagging behind a busy
 * master (stopping it alone is not enough: what the master had written to the link's
 * socket still reaches it on resume).
 */
export async function failoverThroughSentinel(
  group: SentinelGroup,
  prefix: string,
  options: SentinelRunOptions = {},
): Promise<Failover> {
  const master = quiet(new Redis(group.master.url));
  const replica = quiet(new Redis(group.replica.url));
  let replicaNoscriptBeforeKill = true;
  try {
    const sentinels = group.sentinels.map(({ host, port }) => ({ host, port }));
    const run = await runFailover(
      {
        master,
        kill: async () => {
          replicaNoscriptBeforeKill = (await replica.info('errorstats')).includes('NOSCRIPT');
          if (options.replicaLagMs === undefined) {
            await group.master.kill();
            return;
          }
          group.replica.pause();
          await master.client('KILL', 'TYPE', 'replica');
          await new Promise((resolve) => setTimeout(resolve, options.replicaLagMs));
          await group.master.kill();
          group.replica.resume();
        },
        promoted: async () => {
          const port = await group.waitPromoted(group.master.port);
          if (port !== group.replica.port)
            throw new Error(`the Sentinels promoted ${port}, not the replica ${group.replica.port}`);
          if (options.replicas !== undefined) {
            await group.master.restart();
            const restarted = quiet(new Redis(group.master.url));
            await restarted.replicaof(group.replica.host, String(group.replica.port));
            restarted.disconnect();
          }
          return replica;
        },
      },
      plansFor({ prefix, sentinelUrl: group.url, masterName: MASTER_NAME, sentinels }, options.replicas),
      { killAtCount: FAILOVER_LIMIT / 2, redisKey: redisKeyOf(prefix) },
    );
    return { ...run, replicaNoscriptBeforeKill };
  } finally {
    master.disconnect();
    replica.disconnect();
  }
}

/** Kills the master serving the keys' slot under the four processes; the Cluster must promote its replica. */
export async function failoverInCluster(cluster: RedisClusterHandle, prefix: string): Promise<Failover> {
  const redisKey = redisKeyOf(prefix);
  const admin = new Cluster(cluster.startupNodes.map(({ host, port }) => ({ host, port })));
  await admin.ping();
  const shards = (await admin.cluster('SHARDS')) as unknown[][];
  admin.disconnect();
  const ports = shardServing(shards, hashSlot(redisKey(FAILOVER_KEYS[0] as string)));
  const victim = cluster.nodes.find((node) => node.port === ports.master);
  const heir = cluster.nodes.find((node) => node.port === ports.replica);
  if (victim === undefined || heir === undefined) throw new Error(`no server for the shard ${JSON.stringify(ports)}`);
  const master = quiet(new Redis(victim.url));
  const replica = quiet(new Redis(heir.url));
  let replicaNoscriptBeforeKill = true;
  try {
    const run = await runFailover(
      {
        master,
        kill: async () => {
          replicaNoscriptBeforeKill = (await replica.info('errorstats')).includes('NOSCRIPT');
          await victim.kill();
        },
        promoted: async () => {
          while (!(await replica.info('replication')).includes('role:master'))
            await new Promise((resolve) => setTimeout(resolve, 20));
          return replica;
        },
      },
      plansFor({ prefix, clusterNodes: cluster.startupNodes.map(({ host, port }) => ({ host, port })) }),
      { killAtCount: FAILOVER_LIMIT / 2, redisKey },
    );
    return { ...run, replicaNoscriptBeforeKill };
  } finally {
    master.disconnect();
    replica.disconnect();
  }
}

/** `redis`, with its connection errors ignored: the run kills the server under it. */
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
    for (let i = 0; i < ranges.length; i += 2)
      if (slot >= Number(ranges[i]) && slot <= Number(ranges[i + 1])) serves = true;
    if (!serves) continue;
    const nodes = (info.nodes as unknown[][]).map(pairs);
    return {
      master: Number(nodes.find((node) => node.role === 'master')?.port),
      replica: Number(nodes.find((node) => node.role === 'replica')?.port),
    };
  }
  throw new Error(`no shard serves slot ${slot}`);
}

function pairs(list: unknown[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < list.length; i += 2) out[String(list[i])] = list[i + 1];
  return out;
}
