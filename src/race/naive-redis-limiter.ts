import type { Policy } from '../core/policy.js';

/** The two commands the naive limiter sends (an ioredis client fits). */
export interface GetSetClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: number, expiry: 'PX', ms: number): Promise<unknown>;
}

/**
 * TEACHING EXAMPLE, WRONG ON PURPOSE: do not use it to limit anything.
 *
 * A fixed-window counter that reads the count with GET and writes count + 1 with SET, in
 * two round trips. Between the two, other requests (other processes, or the same process
 * with several calls in flight) read the same count and all write count + 1: each believes
 * it took the last unit, so the limit is exceeded. `ratelab race` and the atomicity test
 * set it against the Lua scripts, which read and write in one atomic step.
 */
export function createNaiveRedisLimiter(
  policy: Policy,
  options: { redis: GetSetClient; prefix?: string },
): { consume(key: string): Promise<boolean> } {
  const prefix = options.prefix ?? 'ratelab:naive:';
  return {
    async consume(key: string): Promise<boolean> {
      const redisKey = prefix + key;
      const count = Number((await options.redis.get(redisKey)) ?? 0);
      if (count >= policy.limit) return false;
      await options.redis.set(redisKey, count + 1, 'PX', policy.windowMs);
      return true;
    },
  };
}
