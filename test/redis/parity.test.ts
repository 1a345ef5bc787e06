import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ALGORITHMS, ManualClock, createLimiter, type Algorithm, type PolicyInput } from '../../src/index.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { limitListArb } from '../support/arbitraries.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

// The Redis scripts against the memory limiters as the oracle: the same random streams of
// (time step, key, cost) on one ManualClock must give equal Decisions, field for field.
describeRedis('Redis limiters decide exactly as the memory limiters', () => {
  const fixture = useRedisServer();
  let run = 0;

  const step = fc.record({
    advance: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 3000 })),
    key: fc.constantFrom('a', 'b'),
    cost: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 12 })),
  });
  const policy = fc.record({
    limit: fc.integer({ min: 1, max: 10 }),
    windowMs: fc.integer({ min: 1, max: 2000 }),
    burst: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
  });

  /** A property: random policies of `policies` and streams of steps, every Decision of Redis equal to memory's. */
  const sameDecisions = (algorithm: Algorithm, policies: fc.Arbitrary<PolicyInput>) =>
    fc.assert(
      fc.asyncProperty(
        policies,
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.array(step, { minLength: 1, maxLength: 40 }),
        async (p, start, steps) => {
          const clock = new ManualClock(start);
          const memory = createLimiter(algorithm, p, { clock });
          const shared = createRedisLimiter(algorithm, p, {
            redis: fixture.redis,
            clock,
            prefix: `parity:${run++}:`,
            timeoutMs: 5000,
          });
          for (const { advance, key, cost } of steps) {
            clock.advance(advance);
            const { reason, ...decision } = await shared.consume(key, cost);
            expect(reason).toBe('redis');
            expect(decision).toEqual(memory.consume(key, cost));
          }
        },
      ),
      { numRuns: 40 },
    );

  it.each(ALGORITHMS)('%s', (algorithm: Algorithm) => sameDecisions(algorithm, policy));

  it("several limits on a key, each of its own algorithm: every field equal, each limit's own answer too", () =>
    sameDecisions('token-bucket', limitListArb));
});
