import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import { siblingModule } from '../metrics/child-process.js';
import type { Algorithm } from '../core/policy.js';
import { createSharedLimiter } from '../shared/limiter.js';
import type { LockingMode } from '../shared/locking.js';
import type { ThreadCount, ThreadMode, ThreadTask } from './threads-worker.js';
import { largest, smallest } from '../metrics/largest.js';

/** What `ratelab bench --threads 1,2,4` measures. */
export interface ThreadBenchPlan {
  /** Thread counts, each >= 1. */
  threads: readonly number[];
  algorithm: Algorithm;
  /** Key counts of the workloads: 1 is the hot key. */
  keyCounts: readonly number[];
  /** Measuring time per round, ms. */
  timeMs: number;
  /** Rounds per figure; the median is kept. */
  rounds: number;
}

/**
 * How the threads share state: the shared limiter's two lockings, `unshared` (each thread
 * its own memory limiter: nothing shared), or `compute` (no limiter: each thread spins on
 * private arithmetic, the machine's own ceiling in the same harness, measured in the same
 * run as the others, so they are read against what the machine gave threads just then).
 */
export type ThreadVariant = LockingMode | 'unshared' | 'compute';

/** One figure: decisions/s of all threads together, and its ratio to 1 thread of the same row. */
export interface ThreadFigure {
  /** Keys of the workload (1: the hot key); 0 for `compute`, whose figure counts arithmetic steps. */
  keys: number;
  locking: ThreadVariant;
  threads: number;
  decisionsPerSec: number;
  /** This figure over the same workload and locking at the fewest threads measured. */
  scaling: number;
  /** This figure over the global-lock variant at the same threads and keys. */
  vsGlobal: number;
}

const LOCKINGS: readonly ThreadVariant[] = ['per-key', 'global', 'unshared'];

/**
 * Measures the shared limiter on worker threads, with per-key locks and with one global
 * lock (and each thread with its own unshared limiter), for each workload and thread
 * count, beside the machine's ceiling (`compute`, first): every thread decides on the same
 * table at once. On the hot key all threads decide on one key; on more keys each thread
 * walks its own slice of them round-robin (1/N of the keys at N threads), so no two
 * threads decide on one key and whatever they still share is the table's doing. The
 * policy admits a fraction of the hot key's calls and every 1e4-key call; both paths take
 * the lock.
 */
export async function runThreadBench(plan: ThreadBenchPlan): Promise<ThreadFigure[]> {
  const pool = await Promise.all(Array.from({ length: largest(plan.threads, 0) }, () => startThread()));
  try {
    // Rounds interleave the variants, so a burst of other work on the machine falls on all
    // of them alike rather than on whichever ran at the time.
    const compute = plan.threads.map((threads) => ({ keys: 0, locking: 'compute' as ThreadVariant, threads }));
    const variants = [
      ...compute,
      ...plan.keyCounts.flatMap((keys) =>
        LOCKINGS.flatMap((locking) => plan.threads.map((threads) => ({ keys, locking, threads }))),
      ),
    ];
    const samples = variants.map((): number[] => []);
    for (let round = 0; round < plan.rounds; round++) {
      for (const [i, v] of variants.entries())
        samples[i]?.push(await measure(pool.slice(0, v.threads), plan, v.keys, v.locking));
    }
    const raw = variants.map((v, i) => ({ ...v, decisionsPerSec: median(samples[i] as number[]) }));
    const fewest = smallest(plan.threads);
    const find = (keys: number, locking: ThreadVariant, threads: number) =>
      raw.find((f) => f.keys === keys && f.locking === locking && f.threads === threads)?.decisionsPerSec ?? NaN;
    return raw.map((f) => ({
      ...f,
      scaling: f.decisionsPerSec / find(f.keys, f.locking, fewest),
      vsGlobal: f.decisionsPerSec / find(f.keys, 'global', f.threads),
    }));
  } finally {
    await Promise.all(pool.map((worker) => worker.terminate()));
  }
}

/** Decisions/s of `workers` deciding together on a fresh table. */
async function measure(
  workers: Worker[],
  plan: ThreadBenchPlan,
  keys: number,
  variant: ThreadVariant,
): Promise<number> {
  const locking = variant === 'global' ? 'global' : 'per-key';
  const limiter = createSharedLimiter(
    plan.algorithm,
    { limit: 1_000_000, windowMs: 1000 },
    { maxKeys: Math.max(keys, 16), locking },
  );
  await Promise.all(
    workers.map((worker, i) =>
      ask(worker, {
        type: 'attach',
        handle: limiter.handle,
        mode: modeOf(variant),
        keys: sliceOf(keys, i, workers.length),
      }),
    ),
  );
  // Untimed first: the JIT settles, and every thread has inserted its keys.
  await Promise.all(
    workers.map((worker) => ask<ThreadCount>(worker, { type: 'run', timeMs: Math.min(200, plan.timeMs) })),
  );
  const counts = await Promise.all(
    workers.map((worker) => ask<ThreadCount>(worker, { type: 'run', timeMs: plan.timeMs })),
  );
  return counts.reduce((sum, c) => sum + (c.decisions / c.ms) * 1000, 0);
}

function modeOf(variant: ThreadVariant): ThreadMode {
  return variant === 'unshared' || variant === 'compute' ? variant : 'shared';
}

/** The keys thread `i` of `threads` walks: all of the hot key, else its own slice. */
function sliceOf(keys: number, i: number, threads: number): string[] {
  if (keys <= 1) return keys === 1 ? ['hot'] : [];
  const from = Math.floor((i * keys) / threads);
  const to = Math.floor(((i + 1) * keys) / threads);
  return Array.from({ length: to - from }, (_, k) => `key-${from + k}`);
}

function ask<T>(worker: Worker, task: ThreadTask): Promise<T> {
  return new Promise<T>((done, fail) => {
    worker.once('error', fail);
    worker.once('message', (value: T) => {
      worker.off('error', fail);
      done(value);
    });
    worker.postMessage(task);
  });
}

/** A bench thread: the compiled module from dist/, or the source through tsx (tests, tsx). */
function startThread(): Worker {
  const file = siblingModule(import.meta.url, 'threads-worker');
  if (!file.endsWith('.ts')) return new Worker(file);
  const boot = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(file).href)}); });`;
  return new Worker(boot, { eval: true });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}
