// A real node:cluster application for test/shared/cluster.test.ts, started by
// test/support/ts-worker.mjs with RATELAB_TS_WORKER pointing here (the primary forks its
// workers through the same boot file). The primary prints one JSON line and exits.
//   RATELAB_CLUSTER_MODE=serve: the primary serves one limiter per algorithm; 4 workers
//     each make CALLS calls per algorithm on 10 keys; prints admitted counts per algorithm.
//   RATELAB_CLUSTER_MODE=deaf: the primary serves nothing (never answers); each worker
//     makes 3 calls with failMode RATELAB_FAIL_MODE; prints what they returned and took.
//   RATELAB_CLUSTER_MODE=exit: 8 workers each send 2,000 requests and exit as soon as the
//     first is answered, the rest still in flight; then one more worker makes 100 calls.
//     Prints how many exited and the reasons of the last worker's decisions (a primary that
//     crashed prints nothing).
//   RATELAB_CLUSTER_MODE=burst: the primary serves a sliding log of 1,000 per minute (no
//     refill within a run, so exactly 1,000 can be admitted); RATELAB_CLUSTER_WORKERS workers
//     (default 1) each make CALLS concurrent consume() calls on one key with the default
//     options; prints how many were admitted in all, the decisions' reasons, and the
//     primary's longest event-loop stall.
//   RATELAB_CLUSTER_MODE=stuck: the primary serves a sliding log of 10 per minute; one worker
//     (timeoutMs 200, failMode RATELAB_FAIL_MODE) spends 2 units, stops the primary
//     (SIGSTOP), makes 2,000 concurrent calls, lets it go on (SIGCONT) and makes one more
//     call; prints the reasons and durations of the stalled calls and the last decision.
//   RATELAB_CLUSTER_MODE=composite: the primary serves COMPOSITE_POLICY (two limits, no refill
//     within a run); 4 workers each make 100 calls on one key; then one worker creates a
//     limiter for each policy of RATELAB_CLUSTER_POLICIES (JSON) and makes one call with each.
//     Prints what the 4 workers admitted and the limits their decisions named, and each
//     policy's outcome (`primary`, or the error's code and message).
//   RATELAB_CLUSTER_MODE=keys: the primary serves a limiter with the default maxKeyBytes (128)
//     and one with 16; one worker sends keys of 128, 129 and 1,000,000 bytes and 9 two-byte
//     characters in one batch; prints each call's outcome and the keys each limiter holds.
import cluster from 'node:cluster';
import { performance } from 'node:perf_hooks';
import { ALGORITHMS, type Algorithm, type LimitSpec, type Policy, type PolicyInput } from '../../src/core/policy.js';
import { serveClusterLimiter } from '../../src/shared/cluster-primary.js';
import {
  createClusterLimiter,
  type ClusterDecision,
  type ClusterRateLimiter,
} from '../../src/shared/cluster-worker.js';
import type { FailMode } from '../../src/core/fail-over.js';
import { stallProbe } from './stall-probe.js';
import type { RatelabError } from '../../src/core/errors.js';

const WORKERS = 4;
const CALLS = Number(process.env.RATELAB_CLUSTER_CALLS ?? 1000);
const POLICY: Policy = { limit: 100, windowMs: 3_600_000 };
const mode = process.env.RATELAB_CLUSTER_MODE;

async function primary(): Promise<void> {
  if (mode === 'exit') return survivor();
  if (mode === 'burst') return burstTarget();
  if (mode === 'stuck') return stuckTarget();
  if (mode === 'keys') return keysTarget();
  if (mode === 'composite') return compositeTarget();
  if (mode === 'serve') for (const algorithm of ALGORITHMS) serveClusterLimiter(algorithm, algorithm, POLICY);
  const results: unknown[] = [];
  await new Promise<void>((done) => {
    for (let i = 0; i < WORKERS; i++) {
      cluster.fork().on('message', (message: { result?: unknown }) => {
        if (message.result === undefined) return;
        results.push(message.result);
        if (results.length === WORKERS) done();
      });
    }
  });
  for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
  process.stdout.write(`${JSON.stringify(results)}\n`);
}

const QUITTERS = 8;
const BURST_POLICY: Policy = { limit: 1000, windowMs: 60_000 };

/** Runs one worker with `role` to its result. */
async function oneResult(role: string): Promise<unknown> {
  return (await results(role, 1))[0];
}

/** Runs `count` workers with `role` at once, to their results. */
async function results(role: string, count: number): Promise<unknown[]> {
  const all = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<unknown>((done) =>
          cluster.fork({ RATELAB_CLUSTER_ROLE: role }).on('message', (message: { result?: unknown }) => {
            if (message.result !== undefined) done(message.result);
          }),
        ),
    ),
  );
  for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
  return all;
}

/** Prints `result` as the one entry of the JSON line. */
function print(result: unknown): void {
  process.stdout.write(`${JSON.stringify([result])}\n`);
}

async function burstTarget(): Promise<void> {
  serveClusterLimiter('api', 'sliding-log', BURST_POLICY);
  const stall = stallProbe();
  const each = (await results('burst', Number(process.env.RATELAB_CLUSTER_WORKERS ?? 1))) as Array<{
    admitted: number;
    reasons: Record<string, number>;
  }>;
  const reasons: Record<string, number> = {};
  for (const result of each)
    for (const [reason, count] of Object.entries(result.reasons)) reasons[reason] = (reasons[reason] ?? 0) + count;
  print({ admitted: each.reduce((sum, r) => sum + r.admitted, 0), reasons, primaryStallMs: Math.round(stall()) });
}

async function burst(): Promise<{ admitted: number; reasons: Record<string, number> }> {
  const limiter = createClusterLimiter('api', 'sliding-log', BURST_POLICY);
  const decisions = await Promise.all(Array.from({ length: CALLS }, () => limiter.consume('k')));
  return { admitted: decisions.filter((d) => d.allowed).length, reasons: countReasons(decisions) };
}

const STUCK_POLICY: Policy = { limit: 10, windowMs: 60_000 };

async function stuckTarget(): Promise<void> {
  serveClusterLimiter('api', 'sliding-log', STUCK_POLICY);
  print(await oneResult('stopper'));
}

/** Calls made while the primary is stopped: what they decided, and how long the slowest and fastest took. */
async function stalledCalls(
  limiter: ClusterRateLimiter,
): Promise<{ reasons: Record<string, number>; fastestMs: number; slowestMs: number }> {
  const start = performance.now();
  const timed = await Promise.all(
    Array.from({ length: 2000 }, () =>
      limiter.consume('k').then((decision) => ({ decision, ms: performance.now() - start })),
    ),
  );
  const ms = timed.map((t) => t.ms);
  return {
    reasons: countReasons(timed.map((t) => t.decision)),
    fastestMs: Math.min(...ms),
    slowestMs: Math.max(...ms),
  };
}

async function stopper(): Promise<unknown> {
  const failMode = process.env.RATELAB_FAIL_MODE as FailMode;
  const limiter = createClusterLimiter('api', 'sliding-log', STUCK_POLICY, {
    timeoutMs: 200,
    failMode,
    expectedNodes: 2,
  });
  const before = countReasons([await limiter.consume('k'), await limiter.consume('k')]);
  process.kill(process.ppid, 'SIGSTOP');
  let stalled;
  try {
    stalled = await stalledCalls(limiter);
  } finally {
    process.kill(process.ppid, 'SIGCONT');
  }
  const { reason, allowed, remaining } = await limiter.consume('k');
  return { before, stalled, after: { reason, allowed, remaining } };
}

/** 50 per 10 minutes (sliding log) and 30 per hour (token bucket, 1 back every 2 minutes): 30 in a run, at most. */
const COMPOSITE_POLICY: LimitSpec[] = [
  { limit: 50, windowMs: 600_000, name: 'burst' },
  { limit: 30, windowMs: 3_600_000, name: 'hour', algorithm: 'token-bucket' },
];

async function compositeTarget(): Promise<void> {
  serveClusterLimiter('api', 'sliding-log', COMPOSITE_POLICY);
  const hammers = (await results('composite', WORKERS)) as Array<{ admitted: number; names: string[] }>;
  const policies = await oneResult('policies');
  print({
    admitted: hammers.reduce((sum, r) => sum + r.admitted, 0),
    names: [...new Set(hammers.map((r) => r.names.join(',')))],
    policies,
  });
}

async function hammerComposite(): Promise<{ admitted: number; names: string[] }> {
  const limiter = createClusterLimiter('sliding-log', COMPOSITE_POLICY, { name: 'api', timeoutMs: 30_000 });
  const decisions = await Promise.all(Array.from({ length: 100 }, () => limiter.consume('k')));
  if (decisions.some((d) => d.reason !== 'primary')) throw new Error('a call was not decided by the primary');
  return {
    admitted: decisions.filter((d) => d.allowed).length,
    names: decisions[0]?.limits?.map((l) => l.name) ?? [],
  };
}

/** One call with a limiter of each policy the test lists: who decided it, or why it was refused. */
async function tryPolicies(): Promise<string[]> {
  const policies = JSON.parse(process.env.RATELAB_CLUSTER_POLICIES ?? '[]') as PolicyInput[];
  return Promise.all(
    policies.map((policy, i) =>
      createClusterLimiter('sliding-log', policy, { name: 'api', timeoutMs: 30_000 })
        .consume(`probe-${i}`)
        .then(
          (decision) => decision.reason,
          (error: RatelabError) => `${error.code}: ${error.message}`,
        ),
    ),
  );
}

async function keysTarget(): Promise<void> {
  const wide = serveClusterLimiter('default', 'token-bucket', STUCK_POLICY);
  const narrow = serveClusterLimiter('narrow', 'token-bucket', STUCK_POLICY, { maxKeyBytes: 16 });
  const calls = await oneResult('keys');
  print({ calls, keys: { default: wide.limiter.size, narrow: narrow.limiter.size } });
}

/** What each key got, called together (one batch per limiter): `primary`, or the error's code and message. */
async function sendKeys(): Promise<Record<string, string[]>> {
  const outcome = (call: Promise<ClusterDecision>) =>
    call.then(
      (decision) => decision.reason,
      (error: RatelabError) => `${error.code}: ${error.message}`,
    );
  const keys = {
    default: ['a'.repeat(128), 'b'.repeat(129), 'c'.repeat(1_000_000)],
    narrow: ['a'.repeat(16), 'é'.repeat(8), 'é'.repeat(9)],
  };
  const result: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(keys)) {
    const limiter = createClusterLimiter(name, 'token-bucket', STUCK_POLICY, { timeoutMs: 30_000 });
    result[name] = await Promise.all(list.map((key) => outcome(limiter.consume(key))));
  }
  return result;
}

function countReasons(decisions: readonly ClusterDecision[]): Record<string, number> {
  const reasons: Record<string, number> = {};
  for (const decision of decisions) reasons[decision.reason] = (reasons[decision.reason] ?? 0) + 1;
  return reasons;
}

async function survivor(): Promise<void> {
  serveClusterLimiter('api', 'token-bucket', { limit: 1_000_000, windowMs: 60_000 });
  const exits = await Promise.all(
    Array.from(
      { length: QUITTERS },
      () => new Promise<number>((exited) => cluster.fork({ RATELAB_CLUSTER_ROLE: 'quitter' }).on('exit', exited)),
    ),
  );
  const result = await new Promise<unknown>((done) =>
    cluster.fork({ RATELAB_CLUSTER_ROLE: 'steady' }).on('message', (message: { result?: unknown }) => {
      if (message.result !== undefined) done(message.result);
    }),
  );
  for (const worker of Object.values(cluster.workers ?? {})) worker?.kill();
  process.stdout.write(`${JSON.stringify([{ exited: exits.length, reasons: result }])}\n`);
}

/** A worker that leaves with 2,000 requests in flight (the primary still answering them). */
async function quit(): Promise<void> {
  const limiter = createClusterLimiter(
    'api',
    'token-bucket',
    { limit: 1_000_000, windowMs: 60_000 },
    { timeoutMs: 30_000 },
  );
  const calls = Array.from({ length: 2000 }, (_, i) => limiter.consume(`user-${i % 50}`));
  await Promise.race(calls);
  process.exit(0);
}

async function steady(): Promise<Record<string, number>> {
  const limiter = createClusterLimiter(
    'api',
    'token-bucket',
    { limit: 1_000_000, windowMs: 60_000 },
    { timeoutMs: 30_000 },
  );
  return countReasons(await Promise.all(Array.from({ length: 100 }, () => limiter.consume('steady'))));
}

async function countAdmitted(algorithm: Algorithm): Promise<number> {
  const limiter = createClusterLimiter(algorithm, algorithm, POLICY, { timeoutMs: 30_000 });
  let admitted = 0;
  // 50 requests in flight at a time: the workers' requests interleave at the primary.
  for (let i = 0; i < CALLS; i += 50) {
    const batch = Array.from({ length: Math.min(50, CALLS - i) }, (_, j) => limiter.allow(`user-${(i + j) % 10}`));
    for (const allowed of await Promise.all(batch)) if (allowed) admitted += 1;
  }
  return admitted;
}

async function failOver(): Promise<Array<{ decision: ClusterDecision; ms: number }>> {
  const failMode = process.env.RATELAB_FAIL_MODE as FailMode;
  const limiter = createClusterLimiter(
    'api',
    'token-bucket',
    { limit: 4, windowMs: 60_000 },
    { timeoutMs: 200, failMode, expectedNodes: 2 },
  );
  const out = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    const decision = await limiter.consume('k');
    out.push({ decision, ms: performance.now() - start });
  }
  return out;
}

async function worker(): Promise<void> {
  let result: unknown;
  const role = process.env.RATELAB_CLUSTER_ROLE;
  if (role === 'quitter') {
    await quit();
  } else if (role === 'composite') {
    result = await hammerComposite();
  } else if (role === 'policies') {
    result = await tryPolicies();
  } else if (role === 'keys') {
    result = await sendKeys();
  } else if (role === 'stopper') {
    result = await stopper();
  } else if (role === 'burst') {
    result = await burst();
  } else if (role === 'steady') {
    result = await steady();
  } else if (mode === 'serve') {
    const counts: Record<string, number> = {};
    for (const algorithm of ALGORITHMS) counts[algorithm] = await countAdmitted(algorithm);
    result = counts;
  } else {
    result = await failOver();
  }
  process.send?.({ result });
}

await (cluster.isPrimary ? primary() : worker());
