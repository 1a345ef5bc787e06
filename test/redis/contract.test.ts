import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { describeLimiterContract } from '../contract/limiter-contract.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

// The memory limiters' contract, unchanged, against the Lua scripts on a real server, with
// the ManualClock as the time source. The adapter only checks that Redis decided and
// drops `reason`, which a plain Decision does not have.
describeRedis('Redis limiters', () => {
  const fixture = useRedisServer();

  describeLimiterContract('redis', (algorithm, policy, clock) => {
    const limiter = createRedisLimiter(algorithm, policy, {
      redis: fixture.redis,
      clock,
      timeoutMs: 5000,
      failMode: 'closed',
    });
    return {
      consume: async (key, cost) => {
        const { reason, ...decision } = await limiter.consume(key, cost);
        if (reason !== 'redis') throw new Error(`Redis did not decide: ${reason}`);
        return decision;
      },
    };
  });
});
