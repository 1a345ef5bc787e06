/**
 * A failover, run and measured: several processes (./failover-worker.ts) decide on the same
 * keys through a replicated Redis (Sentinel or Cluster); once the watched key holds
 * `killAtCount` admissions the master is killed (SIGKILL), the run goes on until every
 * process decides through Redis again and the promoted replica holds every key at its
 * limit (and past a SCRIPT FLUSH there), then the processes report every call. Shared by test/redis/failover.test.ts (which asserts) and
 * bench/redis-failover.ts (which prints the figures).
 */
import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Redis } from 'ioredis';
import { percentiles } from '../../src/metrics/percentile.js';
import type { Algorithm } from '../../src/core/policy.js';
import type { DecisionReason, FailMode } from '../../src/redis/redis-limiter.js';
import type { RedisKey } from '../../src/redis/redis-key.js';

const WORKER = fileURLToPath(new URL('./failover-worker.ts', import.meta.url));

/** Reasons by index, as the worker reports them. */
export const REASONS: readonly DecisionReason[] = [
  'redis',
  'deny-cache',
  'fail-open',
  'fail-closed',
  'local-fallback',
  'key-error',
];

/**
 * What made a call take the fail mode, by index as the worker reports it (from the
 * decision's `error`, an open breaker's named by the failure that opened it): nothing
 * (Redis decided), the limiter's timeout, an error naming NOSCRIPT, any other error.
 */
export const CAUSES = ['none', 'timeout', 'noscript', 'error'] as const;
export type Cause = (typeof CAUSES)[number];

/** What one deciding process connects to and does. */
export interface FailoverPlan {
  client: 'ioredis' | 'node-redis';
  /** Through Sentinels: the `redis+sentinel://` URL (ioredis, by connectRedis), and its parts (node-redis createSentinel). */
  sentinelUrl?: string;
  masterName?: string;
  sentinels?: Array<{ host: string; port: number }>;
  /** Or a Cluster's nodes. */
  clusterNodes?: Array<{ host: string; port: number }>;
  algorithm: Algorithm;
  limit: number;
  windowMs: number;
  prefix: string;
  keys: string[];
  timeoutMs: number;
  failMode: FailMode;
  /** The limiter's `replicas` option (WAIT after each script call), when set. */
  replicas?: { wait: number; timeoutMs: number };
  /** Calls per key in each round (all of a round at once), and ms between rounds. */
  callsPerKey: number;
  pauseMs: number;
}

/** One call: started at (epoch ms), took (ms), its reason, whether admitted, its key's index, what failed. */
export interface Call {
  at: number;
  ms: number;
  reason: DecisionReason;
  allowed: boolean;
  key: number;
  cause: Cause;
}

/** What the run needs from the replicated Redis. */
export interface FailoverTarget {
  /** A client on the current master, for the admission count of the watched key. */
  master: Redis;
  /** Kills the master (SIGKILL). */
  kill(): Promise<void>;
  /** Resolves, after the kill, with a client on the promoted replica. */
  promoted(): Promise<Redis>;
}

/** The run's raw outcome: every process's calls and the moments it acted at (epoch ms). */
export interface FailoverRun {
  calls: Call[][];
  killedAt: number;
  promotedAt: number;
  flushedAt: number;
  /** What the promoted replica holds per key at the end (admissions it knows of). */
  storedAfter: number[];
  /** NOSCRIPT replies the promoted replica gave (INFO errorstats), before the SCRIPT FLUSH, and after it. */
  noscriptBeforeFlush: number;
  noscriptAfterFlush: number;
}

const now = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `plans` (one process each) against `target`: kill at `killAtCount` admissions of
 * the first key, then wait for the promotion, for every key at the limit on the promoted
 * replica, SCRIPT FLUSH it, go on for `afterFlushMs`, stop. `redisKey` names a key's Redis key.
 */
export async function runFailover(
  target: FailoverTarget,
  plans: readonly FailoverPlan[],
  options: { killAtCount: number; redisKey: (key: string) => RedisKey; afterFlushMs?: number; maxMs?: number },
): Promise<FailoverRun> {
  const plan = plans[0] as FailoverPlan;
  const workers = plans.map(startWorker);
  const deadline = Date.now() + (options.maxMs ?? 60_000);
  const count = async (redis: Redis, key: string) => Number((await redis.hget(options.redisKey(key), 'count')) ?? 0);
  const until = async (what: string, done: () => Promise<boolean>) => {
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error(`failover run: timed out waiting for ${what}`);
      await sleep(10);
    }
  };
  try {
    await Promise.all(workers.map((worker) => worker.line('ready')));
    for (const worker of workers) worker.send('go');
    await until(
      'the watched key to reach the kill count',
      async () => (await count(target.master, plan.keys[0] as string)) >= options.killAtCount,
    );
    const killedAt = now();
    await target.kill();
    for (const worker of workers) worker.send('killed');
    const promoted = await target.promoted();
    const promotedAt = now();
    const back = new Set<number>();
    await Promise.race([
      Promise.all(workers.map((worker, i) => worker.line('back').then(() => back.add(i)))),
      sleep(Math.max(0, deadline - Date.now())).then(() => {
        const missing = plans.map((p, i) => `${i} (${p.client})`).filter((_, i) => !back.has(i));
        throw new Error(
          `failover run: timed out waiting for every process to decide through Redis again: not back: ${missing.join(', ')}`,
        );
      }),
    ]);
    await until('every key at its limit on the promoted replica', async () => {
      const counts = await Promise.all(plan.keys.map((key) => count(promoted, key)));
      return counts.every((c) => c >= plan.limit);
    });
    const noscriptBeforeFlush = await noscripts(promoted);
    await promoted.script('FLUSH');
    const flushedAt = now();
    await sleep(options.afterFlushMs ?? 500);
    const noscriptAfterFlush = (await noscripts(promoted)) - noscriptBeforeFlush;
    for (const worker of workers) worker.send('stop');
    const calls = await Promise.all(workers.map((worker) => worker.line().then(parseCalls)));
    const storedAfter = await Promise.all(plan.keys.map((key) => count(promoted, key)));
    return { calls, killedAt, promotedAt, flushedAt, storedAfter, noscriptBeforeFlush, noscriptAfterFlush };
  } finally {
    for (const worker of workers) worker.child.kill('SIGKILL');
  }
}

function startWorker(plan: FailoverPlan) {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, JSON.stringify(plan)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    child,
    send: (line: string) => child.stdin.write(`${line}\n`),
    line: async (expected?: string) => {
      const next = await lines.next();
      if (next.done) throw new Error(`a failover worker (${plan.client}) stopped early (see its stderr)`);
      if (expected !== undefined && next.value !== expected)
        throw new Error(`a failover worker said ${JSON.stringify(next.value)}, expected ${expected}`);
      return next.value as string;
    },
  };
}

function parseCalls(line: string): Call[] {
  return (JSON.parse(line) as number[][]).map(([at, ms, reason, allowed, key, cause]) => ({
    at: at as number,
    ms: ms as number,
    reason: REASONS[reason as number] as DecisionReason,
    allowed: allowed === 1,
    key: key as number,
    cause: CAUSES[cause as number] as Cause,
  }));
}

async function noscripts(redis: Redis): Promise<number> {
  const info = await redis.info('errorstats');
  return Number(/errorstat_NOSCRIPT:count=(\d+)/.exec(info)?.[1] ?? 0);
}

/** The figures of a run, per process and in all. */
export interface FailoverFigures {
  calls: number;
  /** The slowest call of the whole run, ms; per process; and the 99th percentile of all. */
  slowestMs: number;
  slowestMsByProcess: number[];
  p99Ms: number;
  /** Calls decided by the fail mode; of them, any before the kill (a healthy master too slow for timeoutMs). */
  failModeCalls: number;
  failModeBeforeKill: number;
  /** From the kill to the last fail-mode answer, ms (the longest of the processes). */
  failModeMs: number;
  /** From the kill to each process's first Redis decision after its last fail-mode one, ms: the longest, and each. */
  recoveryMs: number;
  recoveryMsByProcess: number[];
  /** Per process: fail-mode calls before the kill, and after it. */
  failModeByProcess: Array<[number, number]>;
  /** From the kill to the Sentinels (or the Cluster) naming the promoted replica, ms. */
  promotionMs: number;
  /** Admitted by Redis decisions, in all, and beyond limit x keys. */
  admittedByRedis: number;
  overAdmitted: number;
  /** Admissions Redis answered that the promoted replica does not hold (replication had not carried them). */
  lostWrites: number;
  /** Redis admissions answered in the last 100 ms before the kill, for scale. */
  admittedLast100msBeforeKill: number;
  /**
   * Calls after the SCRIPT FLUSH; how many of them the fail mode decided; and of those, how
   * many for an error rather than the limiter's timeout (which a loaded machine can cause).
   */
  callsAfterFlush: number;
  failModeAfterFlush: number;
  errorsAfterFlush: number;
  /** Calls of the whole run the fail mode decided for an error naming NOSCRIPT. */
  noscriptFailures: number;
}

/** Computes {@link FailoverFigures} from a run of `keys` keys at `limit` each. */
export function failoverFigures(run: FailoverRun, keys: number, limit: number): FailoverFigures {
  const all = run.calls.flat();
  const failing = all.filter((call) => call.reason !== 'redis');
  const admitted = all.filter((call) => call.reason === 'redis' && call.allowed);
  const recoveryMsByProcess = run.calls.map((calls) => {
    const lastFail = calls.reduce(
      (last, c) => (c.reason === 'redis' ? last : Math.max(last, c.at + c.ms)),
      run.killedAt,
    );
    const back = calls
      .filter((c) => c.reason === 'redis' && c.at >= lastFail)
      .reduce((first, c) => Math.min(first, c.at + c.ms), Infinity);
    return back - run.killedAt;
  });
  const perKey = Array.from({ length: keys }, (_, key) => admitted.filter((call) => call.key === key).length);
  const afterFlush = all.filter((call) => call.at >= run.flushedAt);
  return {
    calls: all.length,
    slowestMs: all.reduce((most, call) => Math.max(most, call.ms), 0),
    slowestMsByProcess: run.calls.map((calls) => calls.reduce((most, call) => Math.max(most, call.ms), 0)),
    p99Ms:
      percentiles(
        all.map((call) => call.ms),
        [0.99],
      )[0] ?? 0,
    failModeCalls: failing.length,
    failModeBeforeKill: failing.filter((call) => call.at + call.ms < run.killedAt).length,
    failModeMs: failing.reduce((most, call) => Math.max(most, call.at + call.ms - run.killedAt), 0),
    recoveryMs: recoveryMsByProcess.reduce((most, ms) => Math.max(most, ms), 0),
    recoveryMsByProcess,
    failModeByProcess: run.calls.map((calls) => {
      const failed = calls.filter((c) => c.reason !== 'redis');
      const before = failed.filter((c) => c.at + c.ms < run.killedAt).length;
      return [before, failed.length - before];
    }),
    promotionMs: run.promotedAt - run.killedAt,
    admittedByRedis: admitted.length,
    overAdmitted: perKey.reduce((sum, n) => sum + Math.max(0, n - limit), 0),
    lostWrites: perKey.reduce((sum, n, key) => sum + Math.max(0, n - (run.storedAfter[key] ?? 0)), 0),
    admittedLast100msBeforeKill: admitted.filter(
      (call) => call.at + call.ms <= run.killedAt && call.at + call.ms > run.killedAt - 100,
    ).length,
    callsAfterFlush: afterFlush.length,
    failModeAfterFlush: afterFlush.filter((call) => call.reason !== 'redis').length,
    errorsAfterFlush: afterFlush.filter((call) => call.cause === 'error' || call.cause === 'noscript').length,
    noscriptFailures: all.filter((call) => call.cause === 'noscript').length,
  };
}
