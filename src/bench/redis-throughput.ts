// Redis decisions side by side in one run, on one server and one ioredis connection:
// ratelab's token bucket batched (the default) and per call (`batch: false`) against
// rate-limiter-flexible's RateLimiterRedis. Rounds alternate the contenders' order, so
// drift on a shared machine hits all alike; ratios are taken within a round, then the
// median over rounds (the steadiest figure on a noisy machine).
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { median } from 'simple-statistics';
import { percentiles } from '../metrics/percentile.js';
import { createRedisLimiter } from '../redis/redis-limiter.js';

/** What to measure. */
export interface RedisBenchPlan {
  rounds: number;
  /** Calls per contender per round and per in-flight level. */
  calls: number;
  /** Keys the calls cycle over (every call is admitted: the limit exceeds what a key gets). */
  keys: number;
  /** Calls kept outstanding (closed loop), one measurement per level. */
  inFlight: readonly number[];
}

/** One contender's figures, one entry per round. */
export interface RedisContenderFigures {
  name: string;
  callsPerSec: number[];
  /** This process's CPU (user + system) per decision, in us (`process.cpuUsage`). */
  nodeCpuUs: number[];
  /** The server's CPU (used_cpu_user + used_cpu_sys of `INFO cpu`) per decision, in us. */
  serverCpuUs: number[];
  /** Time inside commands per decision (`INFO commandstats`, all commands), in us. */
  commandUs: number[];
  /** Closed-loop latency per call, in ms. */
  p50Ms: number[];
  p99Ms: number[];
}

export interface RedisBenchLevel {
  inFlight: number;
  contenders: RedisContenderFigures[];
}

export interface RedisBenchResult {
  redisVersion: string;
  plan: RedisBenchPlan;
  levels: RedisBenchLevel[];
  notes: string[];
}

type Call = (key: string) => Promise<void>;

/** The default plan: 7 rounds of 20 000 calls over 10 000 keys at 50 and 500 in flight. */
export const REDIS_BENCH_DEFAULTS: RedisBenchPlan = { rounds: 7, calls: 20_000, keys: 10_000, inFlight: [50, 500] };

/**
 * Runs the plan on `redis` (an ioredis client the caller owns). Writes only keys under a
 * fresh `ratelab-bench:<uuid>:` prefix and deletes them afterwards; resets the server's
 * command statistics (CONFIG RESETSTAT) before each measurement.
 */
export async function runRedisBench(redis: Redis, plan: RedisBenchPlan, progress: (line: string) => void = () => undefined): Promise<RedisBenchResult> {
  const prefix = `ratelab-bench:${randomUUID()}:`;
  const notes: string[] = [];
  const limit = Math.max(1000, 2 * Math.ceil((plan.calls * plan.rounds * plan.inFlight.length) / plan.keys));
  const contenders = await contendersOf(redis, prefix, limit, notes);
  const levels: RedisBenchLevel[] = plan.inFlight.map((inFlight) => ({ inFlight, contenders: [...contenders.keys()].map(emptyFigures) }));
  try {
    for (const call of contenders.values()) await call('warm-up'); // caches the scripts for EVALSHA
    for (let round = 0; round < plan.rounds; round++) {
      const names = rotate([...contenders.keys()], round);
      for (const level of levels) {
        for (const name of names) {
          const figures = level.contenders.find((c) => c.name === name) as RedisContenderFigures;
          record(figures, await measure(redis, contenders.get(name) as Call, plan, level.inFlight));
        }
      }
      progress(`round ${round + 1}/${plan.rounds}`);
    }
  } finally {
    await deleteKeys(redis, prefix);
  }
  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  return { redisVersion: version, plan, levels, notes };
}

async function contendersOf(redis: Redis, prefix: string, limit: number, notes: string[]): Promise<Map<string, Call>> {
  const policy = { limit, windowMs: 60_000 };
  const options = { redis, timeoutMs: 5000, failMode: 'closed' as const };
  const batched = createRedisLimiter('token-bucket', policy, { ...options, prefix: `${prefix}b:` });
  const single = createRedisLimiter('token-bucket', policy, { ...options, prefix: `${prefix}s:`, batch: false });
  const admitted = (decision: { allowed: boolean; reason: string }) => {
    if (!decision.allowed || decision.reason !== 'redis') throw new Error(`bench: unexpected decision ${JSON.stringify(decision)}`);
  };
  const calls = new Map<string, Call>([
    ['ratelab token bucket, batched', (key) => batched.consume(key).then(admitted)],
    ['ratelab token bucket, per call', (key) => single.consume(key).then(admitted)],
  ]);
  const flexible = await rateLimiterFlexible(redis, prefix, limit);
  if (flexible) calls.set(RLF, flexible);
  else notes.push('rate-limiter-flexible is not installed: no ratios (npm install rate-limiter-flexible)');
  return calls;
}

/** The name of the baseline contender; ratios are to it. */
export const RLF = 'rate-limiter-flexible RateLimiterRedis';

async function rateLimiterFlexible(redis: Redis, prefix: string, limit: number): Promise<Call | undefined> {
  let module: typeof import('rate-limiter-flexible');
  try {
    module = await import('rate-limiter-flexible');
  } catch {
    return undefined;
  }
  const limiter = new module.RateLimiterRedis({ storeClient: redis, points: limit, duration: 60, keyPrefix: `${prefix}rlf` });
  return (key) =>
    limiter.consume(key).then(
      () => undefined,
      (reason: unknown) => {
        throw reason instanceof Error ? reason : new Error(`bench: rate-limiter-flexible denied ${key}`);
      },
    );
}

interface Sample {
  callsPerSec: number;
  nodeCpuUs: number;
  serverCpuUs: number;
  commandUs: number;
  p50Ms: number;
  p99Ms: number;
}

async function measure(redis: Redis, call: Call, plan: RedisBenchPlan, inFlight: number): Promise<Sample> {
  await redis.config('RESETSTAT');
  const serverBefore = serverCpuSeconds(await redis.info('cpu'));
  const latencies = new Float64Array(plan.calls);
  let next = 0;
  const lane = async () => {
    while (next < plan.calls) {
      const i = next++;
      const started = performance.now();
      await call(`k${i % plan.keys}`);
      latencies[i] = performance.now() - started;
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: inFlight }, lane));
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const serverSeconds = serverCpuSeconds(await redis.info('cpu')) - serverBefore;
  const commandUsec = commandMicros(await redis.info('commandstats'));
  const [p50, p99] = percentiles(latencies, [0.5, 0.99]) as [number, number];
  return {
    callsPerSec: plan.calls / seconds,
    nodeCpuUs: (used.user + used.system) / plan.calls,
    serverCpuUs: (serverSeconds * 1e6) / plan.calls,
    commandUs: commandUsec / plan.calls,
    p50Ms: p50,
    p99Ms: p99,
  };
}

function serverCpuSeconds(info: string): number {
  const user = Number(/used_cpu_user:([\d.]+)/.exec(info)?.[1] ?? NaN);
  const sys = Number(/used_cpu_sys:([\d.]+)/.exec(info)?.[1] ?? NaN);
  return user + sys;
}

/** usec spent in every command since RESETSTAT, less the INFO that read them. */
function commandMicros(info: string): number {
  let total = 0;
  for (const match of info.matchAll(/cmdstat_(\w+):calls=\d+,usec=(\d+)/g)) {
    if (match[1] !== 'info' && match[1] !== 'config') total += Number(match[2]);
  }
  return total;
}

function emptyFigures(name: string): RedisContenderFigures {
  return { name, callsPerSec: [], nodeCpuUs: [], serverCpuUs: [], commandUs: [], p50Ms: [], p99Ms: [] };
}

function record(figures: RedisContenderFigures, sample: Sample): void {
  figures.callsPerSec.push(sample.callsPerSec);
  figures.nodeCpuUs.push(sample.nodeCpuUs);
  figures.serverCpuUs.push(sample.serverCpuUs);
  figures.commandUs.push(sample.commandUs);
  figures.p50Ms.push(sample.p50Ms);
  figures.p99Ms.push(sample.p99Ms);
}

function rotate<T>(items: readonly T[], by: number): T[] {
  const shift = by % items.length;
  return [...items.slice(shift), ...items.slice(0, shift)];
}

async function deleteKeys(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    if (keys.length > 0) await redis.unlink(...keys);
    cursor = nextCursor;
  } while (cursor !== '0');
}

/** Median over rounds of the per-round ratio `figures / baseline` of `field`. */
export function medianRatio(figures: RedisContenderFigures, baseline: RedisContenderFigures, field: (f: RedisContenderFigures) => number[]): number {
  const ours = field(figures);
  const theirs = field(baseline);
  return median(ours.map((value, i) => value / (theirs[i] as number)));
}
