import type { Algorithm, Policy } from '../policy.js';
import { createNaiveRedisLimiter, type GetSetClient } from './naive-redis-limiter.js';
import { createRedisLimiter } from '../redis/redis-limiter.js';
import type { RedisClient } from '../redis/run-script.js';

/** A client both contenders can drive. */
export type RaceClient = RedisClient & GetSetClient;

/** Which limiter a racer drives: the naive GET-then-SET one, or ratelab's Lua script. */
export type Contender = 'naive' | Algorithm;

/**
 * A window so long (2^40 ms, about 35 years) that nothing refills and no window boundary
 * passes during a race: every admission beyond the limit is an over-admission.
 */
const RACE_WINDOW_MS = 2 ** 40;

/**
 * Sends `requests` calls for `key` through `contender`, keeping `inFlight` of them
 * outstanding at once, and returns how many were admitted.
 */
export async function race(redis: RaceClient, contender: Contender, options: { key: string; limit: number; requests: number; inFlight: number; prefix: string }): Promise<number> {
  const consume = admitter(redis, contender, { limit: options.limit, windowMs: RACE_WINDOW_MS }, options.prefix);
  let next = 0;
  let admitted = 0;
  const lane = async () => {
    while (next < options.requests) {
      next += 1;
      if (await consume(options.key)) admitted += 1;
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.inFlight, options.requests) }, lane));
  return admitted;
}

function admitter(redis: RaceClient, contender: Contender, policy: Policy, prefix: string): (key: string) => Promise<boolean> {
  if (contender === 'naive') {
    const naive = createNaiveRedisLimiter(policy, { redis, prefix });
    return (key) => naive.consume(key);
  }
  // A generous timeout and fail-closed: a race must measure Redis's decisions, not fallbacks.
  const limiter = createRedisLimiter(contender, policy, { redis, prefix, timeoutMs: 10_000, failMode: 'closed' });
  return async (key) => {
    const decision = await limiter.consume(key);
    if (decision.reason !== 'redis') throw new Error(`Redis did not decide (${decision.reason})`);
    return decision.allowed;
  };
}
