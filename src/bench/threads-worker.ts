// One thread of `ratelab bench --threads`: attaches to the shared limiter it is sent and
// decides on its keys as fast as it can for the time asked, then says how many it made.
import { parentPort } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { attachSharedLimiter, type SharedRateLimiter } from '../shared/limiter.js';
import type { SharedLimiterHandle } from '../shared/handle.js';

/** What the bench thread sends: attach (then answer 'ready'), or run (then answer a {@link ThreadCount}). */
export type ThreadTask = { type: 'attach'; handle: SharedLimiterHandle; keys: number; offset: number } | { type: 'run'; timeMs: number };

/** Decisions made and the ms they took. */
export interface ThreadCount {
  decisions: number;
  ms: number;
}

let limiter: SharedRateLimiter | undefined;
let keys: string[] = [];
let next = 0;

function run(timeMs: number): ThreadCount {
  const l = limiter as SharedRateLimiter;
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
    limiter = attachSharedLimiter(task.handle);
    keys = Array.from({ length: task.keys }, (_, i) => (task.keys === 1 ? 'hot' : `key-${i}`));
    next = task.offset % task.keys;
    parentPort?.postMessage('ready');
  } else {
    parentPort?.postMessage(run(task.timeMs));
  }
});
