// One hung master of three, and what the others' keys see: a 3-master Redis Cluster (no
// replicas, a node timeout longer than the pause), every key at its limit, then one
// master stopped (SIGSTOP) for 3 s while 24 keys are asked in rounds. Per client (ioredis
// Cluster, node-redis createCluster) and fail mode: admissions beyond the limit on keys
// of the healthy masters (the goal: none), which reasons they got, and how long calls
// took to answer against the limiter's timeoutMs (the goal: within timeoutMs + 10 ms).
// Answer times include this shared machine's stalls: the longest is an upper bound.
//
//   npx tsx bench/redis-isolation.ts [--timeout-ms 50] [--pause-ms 3000]
import { Cluster } from 'ioredis';
import { createCluster } from 'redis';
import { percentiles } from '../src/metrics/percentile.js';
import { boundedRedisOptions } from '../src/redis/client.js';
import { hashSlot } from '../src/redis/hash-slot.js';
import { createRedisLimiter, type FailMode } from '../src/redis/redis-limiter.js';
import { scriptClient, type RedisClient } from '../src/redis/run-script.js';
import { askWhileStopped } from '../test/support/hung-master.js';
import { startRedisCluster } from '../test/support/redis-server.js';
import { numberArg } from './redis-support.js';

const TIMEOUT_MS = numberArg('--timeout-ms', 50);
const PAUSE_MS = numberArg('--pause-ms', 3000);
const LIMIT = 3;
const KEYS = Array.from({ length: 24 }, (_, i) => `user-${i}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cluster = await startRedisCluster(3, { nodeTimeoutMs: 15_000 });
const ioredis = new Cluster(
  cluster.startupNodes.map(({ host, port }) => ({ host, port })),
  { redisOptions: boundedRedisOptions(1000) },
);
ioredis.on('error', () => {});
const nodeRedis = createCluster({
  rootNodes: cluster.startupNodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
});
nodeRedis.on('error', () => {});
try {
  await ioredis.ping();
  await nodeRedis.connect();
  console.log(
    `one master of 3 stopped for ${PAUSE_MS} ms; ${KEYS.length} keys at their limit of ${LIMIT}; timeoutMs ${TIMEOUT_MS}`,
  );
  console.log(
    `  ${'client'.padEnd(26)} ${'mode'.padEnd(7)} healthy calls  beyond limit  reasons on the stopped master   answer ms p99 / longest`,
  );
  for (const [label, redis] of [
    ['ioredis Cluster', ioredis],
    ['node-redis createCluster', nodeRedis],
  ] as [string, RedisClient][]) {
    for (const failMode of ['closed', 'open'] as FailMode[]) {
      const r = await run(redis, `iso:${label}:${failMode}:`, failMode);
      console.log(
        `  ${label.padEnd(26)} ${failMode.padEnd(7)} ${String(r.healthy).padStart(13)}  ${String(r.beyond).padStart(12)}  ${r.reasons.padEnd(30)} ${r.p99.toFixed(1).padStart(9)} / ${r.longest.toFixed(1)}`,
      );
    }
  }
} finally {
  for (const node of cluster.nodes) node.resume();
  ioredis.disconnect();
  nodeRedis.destroy();
  await cluster.stop();
}

async function run(redis: RedisClient, prefix: string, failMode: FailMode) {
  const policy = { limit: LIMIT, windowMs: 3_600_000 };
  const limiter = createRedisLimiter('token-bucket', policy, { redis, prefix, timeoutMs: TIMEOUT_MS, failMode });
  const filler = createRedisLimiter('token-bucket', policy, { redis, prefix, timeoutMs: 5000, failMode: 'closed' });
  await Promise.all(KEYS.flatMap((key) => Array.from({ length: LIMIT }, () => filler.consume(key))));
  const nodeOf = (key: string) => scriptClient(redis).nodeOf(hashSlot(limiter.redisKey(key)));
  const stopped = nodeOf(KEYS[0]!);
  const victim = cluster.nodes.find((node) => `${node.host}:${node.port}` === stopped)!;
  const seen = await askWhileStopped(victim, KEYS, (key) => limiter.consume(key), PAUSE_MS);
  const healthy = seen.filter((s) => nodeOf(s.key) !== stopped);
  const reasons = [...new Set(seen.filter((s) => nodeOf(s.key) === stopped).map((s) => s.decision.reason))].join(', ');
  const times = seen.map((s) => s.ms);
  const [p99] = percentiles(times, [0.99]) as [number];
  await sleep(500); // late replies of the stopped master drain before the next run
  return {
    healthy: healthy.length,
    beyond: healthy.filter((s) => s.decision.allowed).length,
    reasons,
    p99,
    longest: Math.max(...times),
  };
}
