import { setTimeout as sleep } from 'node:timers/promises';
import type { Waitable } from '../../src/wait/throttle.js';

/**
 * Takes key `k`'s one unit, queues two waiters behind it and aborts the first after 20 ms;
 * returns the order their outcomes came in (`AbortError`, then `next`, when the abort took
 * nothing and let the second go first).
 */
export async function abortFirstOfTwoWaiters(limiter: Waitable): Promise<string[]> {
  await limiter.wait('k');
  const controller = new AbortController();
  const order: string[] = [];
  const aborted = limiter.wait('k', 1, { signal: controller.signal }).then(
    () => order.push('aborted one served'),
    (error: Error) => order.push(error.name),
  );
  const next = limiter.wait('k').then(() => order.push('next'));
  await sleep(20);
  controller.abort();
  await Promise.all([aborted, next]);
  return order;
}
