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
import { RatelabError } from '../core/errors.js';
import { deleteKeysUnder } from '../redis/delete-keys.js';
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

/** How long a failed run keeps trying to delete its keys: past a short CLIENT PAUSE, or a restart. */
const CLEAN_UP_WITHIN_MS = 10_000;

/**
 * Runs the plan on `redis` (an ioredis client the caller owns). Writes only keys under a
 * fresh `ratelab-bench:<uuid>:` prefix and deletes them afterwards; resets the server's
 * command statistics (CONFIG RESETSTAT) before each measurement. When Redis fails mid-run
 * (hangs past the command timeout, shuts down, runs out of memory), the calls in flight
 * are let settle, the keys are deleted (retrying for up to 10 s, so a server back within
 * that is left clean), and it rejects with `REDIS_UNAVAILABLE`: one line naming the
 * contender and Redis's error, and the keys' prefix if they could not be deleted.
 */
export async function runRedisBench(
  redis: Redis,
  plan: RedisBenchPlan,
  progress: (line: string) => void = () => undefined,
): Promise<RedisBenchResult> {
  const prefix = `ratelab-bench:${randomUUID()}:`;
  let result: RedisBenchResult | undefined;
  let caught: unknown;
  try {
    result = await measurePlan(redis, plan, prefix, progress);
  } catch (error) {
    caught = error ?? new Error('bench --redis failed');
  }
  // Asked before the clean-up, while Redis is still in the state that failed the run.
  const failure = caught === undefined ? undefined : await benchFailure(redis, prefix, caught);
  const cleaned = await deleteKeysUnder(redis, prefix, caught === undefined ? 0 : CLEAN_UP_WITHIN_MS);
  if (caught !== undefined && failure === undefined) throw caught instanceof ContenderFailure ? caught.error : caught;
  if (failure === undefined && cleaned) return result as RedisBenchResult;
  const left = cleaned ? '' : `${failure ? '; ' : ''}could not delete the bench's keys ${prefix}* from Redis`;
  throw new RatelabError('REDIS_UNAVAILABLE', `${failure?.message ?? ''}${left}`, {
    field: 'redis',
    cause: failure?.cause,
  });
}

async function measurePlan(
  redis: Redis,
  plan: RedisBenchPlan,
  prefix: string,
  progress: (line: string) => void,
): Promise<RedisBenchResult> {
  const notes: string[] = [];
  const limit = Math.max(1000, 2 * Math.ceil((plan.calls * plan.rounds * plan.inFlight.length) / plan.keys));
  const contenders = await contendersOf(redis, prefix, limit, notes);
  const levels: RedisBenchLevel[] = plan.inFlight.map((inFlight) => ({
    inFlight,
    contenders: [...contenders.keys()].map(emptyFigures),
  }));
  for (const [name, call] of contenders) await during(name, call('warm-up')); // caches the scripts for EVALSHA
  for (let round = 0; round < plan.rounds; round++) {
    const names = rotate([...contenders.keys()], round);
    for (const level of levels) {
      for (const name of names) {
        const figures = level.contenders.find((c) => c.name === name) as RedisContenderFigures;
        record(figures, await during(name, measure(redis, contenders.get(name) as Call, plan, level.inFlight)));
      }
    }
    progress(`round ${round + 1}/${plan.rounds}`);
  }
  notes.push(...compositeNotes(levels));
  const version = /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  return { redisVersion: version, plan, levels, notes };
}

/**
 * What two limits on a key cost against one: per level, the median over rounds of the
 * composite's calls/s over the batched single limit's in the same round.
 */
function compositeNotes(levels: readonly RedisBenchLevel[]): string[] {
  const ratios = levels.map((level) => {
    const of = (name: string) => level.contenders.find((c) => c.name === name) as RedisContenderFigures;
    const ratio = medianRatio(of(COMPOSITE), of(BATCHED), (f) => f.callsPerSec);
    return `${ratio.toFixed(2)}x at ${level.inFlight}`;
  });
  return [
    'ratelab 2 limits = two token buckets a key (1 min, 1 h), batched',
    `2 limits / batched calls/s: ${ratios.join(', ')} in flight`,
  ];
}

/** A failure of Redis while `contender` was measured (or warmed up). */
class ContenderFailure extends Error {
  constructor(
    readonly contender: string,
    readonly error: unknown,
  ) {
    super(error instanceof Error ? error.message : String(error));
  }
}

function during<T>(contender: string, work: Promise<T>): Promise<T> {
  return work.catch((error: unknown) => {
    throw new ContenderFailure(contender, error);
  });
}

/**
 * A limiter decision that Redis did not make: the limiter fell back on its fail mode
 * because a call to Redis failed (timed out, the connection closed, an error reply).
 */
class FailModeDecision extends Error {
  constructor(readonly reason: string) {
    super(`the limiter decided by its fail mode (${reason})`);
  }
}

/**
 * What went wrong, as `REDIS_UNAVAILABLE`: for a decision the fail mode made, Redis's own
 * error, asked at once with a write of the bench's (the limiter keeps it to itself); for
 * a failed command, its error. Undefined for a denial Redis made, or any other error: a
 * bug of the bench's (its limit admits every call), which the caller rethrows.
 */
async function benchFailure(redis: Redis, prefix: string, error: unknown): Promise<RatelabError | undefined> {
  const contender = error instanceof ContenderFailure ? error.contender : 'between measurements';
  const cause = error instanceof ContenderFailure ? error.error : error;
  if (!(cause instanceof FailModeDecision) && !isRedisError(cause)) return undefined;
  const why =
    cause instanceof FailModeDecision ? await redisErrorNow(redis, prefix, cause.message) : (cause as Error).message;
  return new RatelabError('REDIS_UNAVAILABLE', `Redis failed during bench --redis (${contender}): ${oneLine(why)}`, {
    field: 'redis',
    cause,
  });
}

/** Redis's error on a write now, or `otherwise` when the write succeeds. */
async function redisErrorNow(redis: Redis, prefix: string, otherwise: string): Promise<string> {
  try {
    await redis.set(`${prefix}probe`, '1', 'PX', 1000);
    return otherwise;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** An error of the connection or a reply of Redis's (ioredis's), as opposed to a bug. */
function isRedisError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return (
    error.name === 'ReplyError' ||
    /timed out|Stream isn't writeable|Connection is closed|ECONNRESET|ECONNREFUSED|EPIPE/i.test(error.message)
  );
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

async function contendersOf(redis: Redis, prefix: string, limit: number, notes: string[]): Promise<Map<string, Call>> {
  const policy = { limit, windowMs: 60_000 };
  const options = { redis, timeoutMs: 5000, failMode: 'closed' as const };
  const batched = createRedisLimiter('token-bucket', policy, { ...options, prefix: `${prefix}b:` });
  // Two limits on each key, one script call deciding both: the hourly one as roomy as the minute's.
  const composite = createRedisLimiter('token-bucket', [policy, { limit: 60 * limit, windowMs: 3_600_000 }], {
    ...options,
    prefix: `${prefix}c:`,
  });
  const single = createRedisLimiter('token-bucket', policy, { ...options, prefix: `${prefix}s:`, batch: false });
  const admitted = (decision: { allowed: boolean; reason: string }) => {
    if (decision.reason !== 'redis') throw new FailModeDecision(decision.reason);
    if (!decision.allowed) throw new Error(`bench: unexpected decision ${JSON.stringify(decision)}`);
  };
  const calls = new Map<string, Call>([
    [BATCHED, (key) => batched.consume(key).then(admitted)],
    ['ratelab token bucket, per call', (key) => single.consume(key).then(admitted)],
    [COMPOSITE, (key) => composite.consume(key).then(admitted)],
  ]);
  const flexible = await rateLimiterFlexible(redis, prefix, limit);
  if (flexible) calls.set(RLF, flexible);
  else notes.push('rate-limiter-flexible is not installed: no ratios (npm install rate-limiter-flexible)');
  return calls;
}

/** The contender of two limits on each key (batched), measured against the batched single limit. */
export const COMPOSITE = 'ratelab token bucket, 2 limits';
const BATCHED = 'ratelab token bucket, batched';

/** The name of the baseline contender; ratios are to it. */
export const RLF = 'rate-limiter-flexible RateLimiterRedis';

async function rateLimiterFlexible(redis: Redis, prefix: string, limit: number): Promise<Call | undefined> {
  let module: typeof import('rate-limiter-flexible');
  try {
    module = await import('rate-limiter-flexible');
  } catch {
    return undefined;
  }
  const limiter = new module.RateLimiterRedis({
    storeClient: redis,
    points: limit,
    duration: 60,
    keyPrefix: `${prefix}rlf`,
  });
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
  let failed = false;
  const lane = async () => {
    while (next < plan.calls && !failed) {
      const i = next++;
      const started = performance.now();
      try {
        await call(`k${i % plan.keys}`);
      } catch (error) {
        failed = true;
        throw error;
      }
      latencies[i] = performance.now() - started;
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await allLanes(Array.from({ length: inFlight }, lane));
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

/**
 * Waits for every lane, then rejects with the first failure: a lane that failed stops the
 * others from starting new calls, and none of its calls lands after the keys are deleted.
 */
async function allLanes(lanes: Promise<void>[]): Promise<void> {
  const settled = await Promise.allSettled(lanes);
  const failure = settled.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
  if (failure !== undefined) throw failure.reason;
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

/** Median over rounds of the per-round ratio `figures / baseline` of `field`. */
export function medianRatio(
  figures: RedisContenderFigures,
  baseline: RedisContenderFigures,
  field: (f: RedisContenderFigures) => number[],
): number {
  const ours = field(figures);
  const theirs = field(baseline);
  return median(ours.map((value, i) => value / (theirs[i] as number)));
}
