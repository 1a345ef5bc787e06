// One thread of `ratelab bench --threads`: attaches to the shared limiter it is sent and
// decides on its keys as fast as it can for the time asked, then says how many it made.
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { createLimiter, type RateLimiter } from '../memory/limiter.js';
import { attachSharedLimiter } from '../shared/limiter.js';
import type { SharedLimiterHandle } from '../shared/handle.js';

/**
 * How a bench thread works: on the shared limiter's handle, on a memory limiter of its own
 * with the same algorithm and policy (`unshared`), or on private arithmetic alone
 * (`compute`: the machine's ceiling, the same loop with no limiter in it).
 */
export type ThreadMode = 'shared' | 'unshared' | 'compute';

/**
 * What the bench thread is sent: attach (in `mode`, to decide on `keys` round-robin), then
 * answer 'ready'; or run, then answer a {@link ThreadCount}.
 */
export type ThreadTask =
  { type: 'attach'; handle: SharedLimiterHandle; mode: ThreadMode; keys: string[] } | { type: 'run'; timeMs: number };

/** Decisions (for `compute`, arithmetic steps) made and the ms they took. */
export interface ThreadCount {
  decisions: number;
  ms: number;
}

let limiter: RateLimiter | undefined;
let keys: string[] = [];
let next = 0;
/** Where `compute` keeps its arithmetic, so the loop cannot be optimised away. */
let sink = 1;

/** A step of private arithmetic (xorshift): no memory shared, nothing allocated. */
function step(x: number): number {
  x ^= x << 13;
  x ^= x >>> 17;
  return x ^ (x << 5);
}

function compute(timeMs: number): ThreadCount {
  const start = performance.now();
  const end = start + timeMs;
  let decisions = 0;
  let now = start;
  let x = sink;
  while (now < end) {
    for (let i = 0; i < 256; i++) x = step(x);
    decisions += 256;
    now = performance.now();
  }
  sink = x;
  return { decisions, ms: now - start };
}

function run(timeMs: number): ThreadCount {
  const l = limiter as RateLimiter;
  const start = performance.now();
  const end = start + timeMs;
  let decisions = 0;
  let now = start;
  // The clock is read once per 256 decisions: a read per decision would be measured too.
  while (now < end) {
    for (let i = 0; i < 256; i++) {
      l.allow(keys[next] as string);
      next = next + 1 === keys.length ? 0 : next + 1;
    }
    decisions += 256;
    now = performance.now();
  }
  return { decisions, ms: now - start };
}

parentPort?.on('message', (task: ThreadTask) => {
  if (task.type === 'attach') {
    limiter =
      task.mode === 'compute'
        ? undefined
        : task.mode === 'unshared'
          ? createLimiter(task.handle.algorithm, task.handle.policy)
          : attachSharedLimiter(task.handle);
    keys = task.keys;
    next = 0;
    parentPort?.postMessage('ready');
  } else {
    parentPort?.postMessage(limiter === undefined ? compute(task.timeMs) : run(task.timeMs));
  }
});
