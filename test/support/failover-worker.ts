// One deciding process of the failover tests and bench (test/support/failover-run.ts starts
// several): connects the client its plan names (Sentinel or Cluster, ioredis or node-redis),
// prints "ready", and on a "go" line decides on the plan's keys in rounds until a "stop"
// line (and "killed" before it, see below), then prints every call as one JSON line: [start (epoch ms), duration ms, reason
// index, allowed, key index, cause index].
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { Cluster } from 'ioredis';
import { createCluster, createSentinel } from 'redis';
import { boundedRedisOptions, connectRedis } from '../../src/redis/client.js';
import { createRedisLimiter, type RedisDecision } from '../../src/redis/redis-limiter.js';
import type { RedisClient } from '../../src/redis/run-script.js';
import { CIRCUIT_OPEN } from '../../src/redis/node-breaker.js';
import { RedisTimeoutError } from '../../src/redis/timeout.js';
import { CAUSES, REASONS, type Cause, type FailoverPlan } from './failover-run.js';

const plan = JSON.parse(process.argv[2] as string) as FailoverPlan;

async function connect(): Promise<{ redis: RedisClient; close: () => void }> {
  if (plan.client === 'ioredis' && plan.sentinelUrl !== undefined) {
    const redis = await connectRedis(plan.sentinelUrl);
    return { redis, close: () => redis.disconnect() };
  }
  if (plan.client === 'node-redis' && plan.sentinelUrl !== undefined) {
    const redis = createSentinel({
      name: plan.masterName as string,
      sentinelRootNodes: plan.sentinels as Array<{ host: string; port: number }>,
      nodeClientOptions: {
        disableOfflineQueue: true,
        socket: { connectTimeout: 1000, reconnectStrategy: (times: number) => Math.min(times * 50, 500) },
      },
    });
    redis.on('error', () => {});
    await redis.connect();
    return { redis: redis as unknown as RedisClient, close: () => void redis.destroy() };
  }
  const nodes = plan.clusterNodes as Array<{ host: string; port: number }>;
  if (plan.client === 'ioredis') {
    const redis = new Cluster(nodes, { redisOptions: boundedRedisOptions(1000), enableOfflineQueue: false });
    redis.on('error', () => {});
    await new Promise((resolve) => redis.once('ready', resolve));
    return { redis, close: () => redis.disconnect() };
  }
  const redis = createCluster({
    rootNodes: nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })),
    defaults: {
      disableOfflineQueue: true,
      socket: { connectTimeout: 1000, reconnectStrategy: (times: number) => Math.min(times * 50, 500) },
    },
  });
  redis.on('error', () => {});
  await redis.connect();
  return { redis: redis as unknown as RedisClient, close: () => void redis.destroy() };
}

const { redis, close } = await connect();

/**
 * Until the client decides through Redis: a Cluster client is ready before its connection
 * to each node is, and without an offline queue its first calls would take the fail mode.
 * Keys of another prefix (in the same hash slot), so the run's counts start at zero.
 */
async function warmUp(): Promise<void> {
  const probe = createRedisLimiter(
    plan.algorithm,
    { limit: plan.limit, windowMs: plan.windowMs },
    { redis, prefix: `${plan.prefix}warm-up:`, timeoutMs: 1000, failMode: 'closed' },
  );
  for (let attempt = 0; attempt < 200; attempt++) {
    const decisions = await Promise.all(plan.keys.map((key) => probe.consume(key)));
    if (decisions.every((decision) => decision.reason === 'redis')) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`failover worker (${plan.client}): Redis did not decide within 200 attempts`);
}
const limiter = createRedisLimiter(
  plan.algorithm,
  { limit: plan.limit, windowMs: plan.windowMs },
  {
    redis,
    prefix: plan.prefix,
    timeoutMs: plan.timeoutMs,
    failMode: plan.failMode,
    ...(plan.replicas === undefined ? {} : { replicas: plan.replicas }),
  },
);
await warmUp();
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
process.stdout.write('ready\n');
await lines.next();
// "killed" (the master is gone): print "back" at this process's first Redis decision
// after a fail-mode one; "stop": report.
let stopping = false;
let killed = false;
let failedSinceKill = false;
let back = false;
void lines.next().then(async () => {
  killed = true;
  await lines.next();
  stopping = true;
});
const noteRecovery = (decision: RedisDecision) => {
  if (!killed || back) return;
  if (decision.reason !== 'redis') failedSinceKill = true;
  else if (failedSinceKill) {
    back = true;
    process.stdout.write('back\n');
  }
};

const TIMED_OUT = new RedisTimeoutError(plan.timeoutMs).message;
/** What failed, from the decision's `error` (a decision the open breaker made names the failure that opened it). */
const causeOf = (decision: RedisDecision): Cause => {
  if (decision.error === undefined) return 'none';
  const error = decision.error.startsWith(CIRCUIT_OPEN) ? decision.error.slice(CIRCUIT_OPEN.length) : decision.error;
  if (error === TIMED_OUT) return 'timeout';
  return error.includes('NOSCRIPT') ? 'noscript' : 'error';
};

const calls: number[][] = [];
const epoch = performance.timeOrigin;
const timed = async (index: number): Promise<void> => {
  const started = performance.now();
  const decision: RedisDecision = await limiter.consume(plan.keys[index] as string);
  noteRecovery(decision);
  calls.push([
    epoch + started,
    performance.now() - started,
    REASONS.indexOf(decision.reason),
    decision.allowed ? 1 : 0,
    index,
    CAUSES.indexOf(causeOf(decision)),
  ]);
};
const round = plan.keys.flatMap((_, index) => Array.from({ length: plan.callsPerKey }, () => index));
while (!stopping) {
  await Promise.all(round.map(timed));
  await new Promise((resolve) => setTimeout(resolve, plan.pauseMs));
}
process.stdout.write(`${JSON.stringify(calls)}\n`);
close();
process.stdin.destroy();
