// One thread of `ratelab bench --threads`: attaches to the shared limiter it is sent and
// decides on its keys as fast as it can for the time asked, then says how many it made.
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { createLimiter, type RateLimiter } from '../memory/limiter.js';
import { attachSharedLimiter } from '../shared/limiter.js';
import type { SharedLimiterHandle } from '../shared/handle.js';

/**
 * What the bench thread sends: attach to a shared limiter's handle, or (`unshared`, the
 * machine's ceiling) make a memory limiter of this thread's own with the same algorithm and
 * policy, then answer 'ready'; or run, then answer a {@link ThreadCount}.
 */
export type ThreadTask = { type: 'attach'; handle: SharedLimiterHandle; unshared: boolean; keys: number; offset: number } | { type: 'run'; timeMs: number };

/** Decisions made and the ms they took. */
export interface ThreadCount {
  decisions: number;
  ms: number;
}

let limiter: RateLimiter | undefined;
let keys: string[] = [];
let next = 0;

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
    limiter = task.unshared ? createLimiter(task.handle.algorithm, task.handle.policy) : attachSharedLimiter(task.handle);
    keys = Array.from({ length: task.keys }, (_, i) => (task.keys === 1 ? 'hot' : `key-${i}`));
    next = task.offset % task.keys;
    parentPort?.postMessage('ready');
  } else {
    parentPort?.postMessage(run(task.timeMs));
  }
});
