// One racing process of the composite test (composite-processes.test.ts): prints "ready",
// waits for "go" on stdin, then for `runMs` keeps `inFlight` callers asking a composite
// limiter (5 per second and 20 per hour, token buckets) for one key, each pausing
// `pauseMs` between calls, and prints what it saw as one JSON line.
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { Cluster, Redis } from 'ioredis';
import { createClient, createCluster } from 'redis';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import type { RedisClient } from '../../src/redis/run-script.js';

/** What one process saw: admissions, denials by the limit that denied, decisions Redis did not make. */
export interface CompositeTally {
  admitted: number;
  /** Denied while the hourly limit still had room: the per-second limit alone denied. */
  secondOnly: number;
  /** Denied by the hourly limit (spent). */
  hourly: number;
  notRedis: number;
}

/** The clients the test runs the race with. */
export type ClientKind = 'ioredis' | 'ioredis-cluster' | 'node-redis' | 'node-redis-cluster';

const [kind, addresses, prefix, runMs, inFlight, pauseMs] = process.argv.slice(2) as [
  ClientKind,
  string,
  string,
  string,
  string,
  string,
];
const nodes = addresses.split(',').map((address) => {
  const [host, port] = address.split(':') as [string, string];
  return { host, port: Number(port) };
});

async function connect(): Promise<{ redis: RedisClient; close: () => Promise<unknown> }> {
  const first = nodes[0] as { host: string; port: number };
  const url = `redis://${first.host}:${first.port}`;
  if (kind === 'ioredis') {
    const redis = new Redis(url);
    await redis.ping();
    return { redis, close: async () => redis.disconnect() };
  }
  if (kind === 'ioredis-cluster') {
    const redis = new Cluster(nodes);
    await redis.ping();
    return { redis, close: async () => redis.disconnect() };
  }
  if (kind === 'node-redis') {
    const client = createClient({ url });
    await client.connect();
    return { redis: client, close: async () => client.destroy() };
  }
  const cluster = createCluster({ rootNodes: nodes.map(({ host, port }) => ({ url: `redis://${host}:${port}` })) });
  await cluster.connect();
  return { redis: cluster, close: async () => cluster.destroy() };
}

const { redis, close } = await connect();
const limiter = createRedisLimiter(
  'token-bucket',
  [
    { limit: 5, windowMs: 1000 },
    { limit: 20, windowMs: 3_600_000 },
  ],
  { redis, prefix, timeoutMs: 5000, failMode: 'closed' },
);
const lines = createInterface({ input: process.stdin })[Symbol.asyncIterator]();
process.stdout.write('ready\n');
await lines.next();
const tally: CompositeTally = { admitted: 0, secondOnly: 0, hourly: 0, notRedis: 0 };
const until = performance.now() + Number(runMs);
const caller = async () => {
  while (performance.now() < until) {
    const decision = await limiter.consume('one-key');
    if (decision.reason !== 'redis') tally.notRedis += 1;
    else if (decision.allowed) tally.admitted += 1;
    else if (decision.limits?.[1]?.allowed === false) tally.hourly += 1;
    else tally.secondOnly += 1;
    await sleep(Number(pauseMs));
  }
};
await Promise.all(Array.from({ length: Number(inFlight) }, caller));
process.stdout.write(`${JSON.stringify(tally)}\n`);
await close();
process.stdin.destroy();
