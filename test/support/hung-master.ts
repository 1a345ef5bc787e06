import { performance } from 'node:perf_hooks';
import type { RedisDecision } from '../../src/redis/redis-limiter.js';
import type { RedisServer } from './redis-server.js';

/** One call's answer and how long it took, in ms. */
export interface Timed {
  key: string;
  decision: RedisDecision;
  ms: number;
}

/**
 * Stops `node` (SIGSTOP) for `pauseMs` and meanwhile asks every key in rounds (a round's
 * calls at once, rounds 10 ms apart); resumes it even if a call throws. Returns every
 * answer with its time. Shared by test/redis/isolation.test.ts (which asserts the counts)
 * and bench/redis-isolation.ts (which reports the times).
 */
export async function askWhileStopped(
  node: RedisServer,
  keys: readonly string[],
  consume: (key: string) => Promise<RedisDecision>,
  pauseMs: number,
): Promise<Timed[]> {
  const seen: Timed[] = [];
  node.pause();
  try {
    const until = performance.now() + pauseMs;
    while (performance.now() < until) {
      seen.push(...(await Promise.all(keys.map((key) => timed(consume, key)))));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    node.resume();
  }
  return seen;
}

async function timed(consume: (key: string) => Promise<RedisDecision>, key: string): Promise<Timed> {
  const started = performance.now();
  const decision = await consume(key);
  return { key, decision, ms: performance.now() - started };
}
