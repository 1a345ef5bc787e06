import { RatelabError } from '../core/errors.js';
import type { Algorithm, Policy } from '../core/policy.js';
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

/** A contender's name as `ratelab race` prints it. */
export function contenderName(contender: Contender): string {
  return contender === 'naive' ? 'naive GET-then-SET' : `ratelab Lua (${contender})`;
}

/**
 * Sends `requests` calls for `key` through `contender`, keeping `inFlight` of them
 * outstanding at once, and returns how many were admitted. When Redis fails, every lane
 * stops sending and, once none has a call in flight (so nothing it sent lands after a
 * clean-up), rejects with `REDIS_UNAVAILABLE` naming the contender and the reason.
 */
export async function race(
  redis: RaceClient,
  contender: Contender,
  options: {
    key: string;
    limit: number;
    requests: number;
    inFlight: number;
    prefix: string;
    stop?: { failed: boolean };
  },
): Promise<number> {
  const consume = admitter(redis, contender, { limit: options.limit, windowMs: RACE_WINDOW_MS }, options.prefix);
  const stop = options.stop ?? { failed: false };
  let next = 0;
  let admitted = 0;
  const lane = async () => {
    while (next < options.requests && !stop.failed) {
      next += 1;
      try {
        if (await consume(options.key)) admitted += 1;
      } catch (error) {
        stop.failed = true;
        throw error;
      }
    }
  };
  const lanes = await Promise.allSettled(Array.from({ length: Math.min(options.inFlight, options.requests) }, lane));
  const failure = lanes.find((lane): lane is PromiseRejectedResult => lane.status === 'rejected');
  if (failure !== undefined) throw raceFailure(contender, failure.reason);
  if (stop.failed) throw raceFailure(contender, new Error('another connection failed'));
  return admitted;
}

function raceFailure(contender: Contender, error: unknown): RatelabError {
  const why = error instanceof Error ? error.message : String(error);
  return new RatelabError('REDIS_UNAVAILABLE', `Redis failed during the race (${contenderName(contender)}): ${why}`, {
    field: 'redis',
    cause: error,
  });
}

function admitter(
  redis: RaceClient,
  contender: Contender,
  policy: Policy,
  prefix: string,
): (key: string) => Promise<boolean> {
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
