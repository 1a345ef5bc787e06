import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ALGORITHMS, ManualClock, createLimiter, type Algorithm } from '../../src/index.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { limitListArb } from '../support/arbitraries.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

// Batched decisions against the per-call path as the oracle, on a real server: random
// groups of calls issued in one event-loop turn (so they share script calls, split at a
// random batch cap) must decide exactly as the same calls sent one at a time, in order:
// duplicate keys within a batch, costs 0 and above capacity, the clock stepping back.
describeRedis('batched decisions equal the per-call path', () => {
  const fixture = useRedisServer();
  let run = 0;

  /** The fixture's client, counting the script calls (EVALSHA) sent through it. */
  const countingClient = () => {
    const counted = {
      scriptCalls: 0,
      client: {
        evalsha: (...args: Parameters<typeof fixture.redis.evalsha>) => (
          (counted.scriptCalls += 1),
          fixture.redis.evalsha(...args)
        ),
        eval: (...args: Parameters<typeof fixture.redis.eval>) => fixture.redis.eval(...args),
        del: (...keys: string[]) => fixture.redis.del(...keys),
      },
    };
    return counted;
  };

  const call = fc.record({
    key: fc.constantFrom('a', 'b', 'c'),
    cost: fc.oneof(fc.constant(1), fc.integer({ min: 0, max: 14 })),
  });
  const group = fc.record({
    jump: fc.oneof(fc.constant(0), fc.integer({ min: -500, max: 40 }), fc.integer({ min: -3000, max: 3000 })),
    calls: fc.array(call, { minLength: 1, maxLength: 12 }),
  });
  const policy = fc.record({
    limit: fc.integer({ min: 1, max: 10 }),
    windowMs: fc.integer({ min: 1, max: 2000 }),
    burst: fc.option(fc.integer({ min: 1, max: 10 }), { nil: undefined }),
  });

  it.each(ALGORITHMS)('%s', async (algorithm: Algorithm) => {
    await fc.assert(
      fc.asyncProperty(
        policy,
        fc.integer({ min: 3000, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 5 }),
        fc.array(group, { minLength: 1, maxLength: 10 }),
        async (p, start, maxKeys, groups) => {
          const clock = new ManualClock(start);
          const options = { redis: fixture.redis, clock, timeoutMs: 5000, failMode: 'closed' as const };
          // Counts the batched limiter's script calls: one per maxKeys calls of a group.
          const counting = countingClient();
          const batched = createRedisLimiter(algorithm, p, {
            ...options,
            redis: counting.client,
            prefix: `bp:${run}:b:`,
            batch: { maxKeys },
          });
          const single = createRedisLimiter(algorithm, p, { ...options, prefix: `bp:${run++}:s:`, batch: false });
          for (const { jump, calls } of groups) {
            clock.set(Math.max(0, clock.now() + jump));
            const together = await Promise.all(calls.map(({ key, cost }) => batched.consume(key, cost)));
            const oneByOne = [];
            for (const { key, cost } of calls) oneByOne.push(await single.consume(key, cost));
            expect(together).toEqual(oneByOne);
            expect(together.every((d) => d.reason === 'redis')).toBe(true);
          }
          expect(counting.scriptCalls).toBe(
            groups.reduce((sum, { calls }) => sum + Math.ceil(calls.length / maxKeys), 0),
          );
        },
      ),
      { numRuns: 40 },
    );
  });

  it('several limits on a key: batched (each of its Redis keys counting toward maxKeys) as the memory composite, one call at a time', async () => {
    await fc.assert(
      fc.asyncProperty(
        limitListArb,
        fc.integer({ min: 0, max: 2 ** 40 }),
        fc.integer({ min: 1, max: 10 }),
        fc.array(group, { minLength: 1, maxLength: 10 }),
        async (list, start, maxKeys, groups) => {
          const clock = new ManualClock(start);
          const counting = countingClient();
          const batched = createRedisLimiter('token-bucket', list, {
            redis: counting.client,
            clock,
            timeoutMs: 5000,
            failMode: 'closed',
            prefix: `bp:${run++}:c:`,
            batch: { maxKeys },
          });
          const memory = createLimiter('token-bucket', list, { clock });
          const perCall = Math.max(1, Math.floor(maxKeys / batched.redisKeys('k').length));
          for (const { jump, calls } of groups) {
            clock.set(clock.now() + Math.abs(jump));
            const together = await Promise.all(calls.map(({ key, cost }) => batched.consume(key, cost)));
            expect(together.every((d) => d.reason === 'redis')).toBe(true);
            expect(together.map(({ reason: _reason, ...d }) => d)).toEqual(
              calls.map(({ key, cost }) => memory.consume(key, cost)),
            );
          }
          // A group of 8 or more calls, sent with nothing in flight, goes as two script calls
          // at least (the batcher's split).
          const scriptCalls = (n: number) => Math.ceil(n / (n >= 8 ? Math.min(perCall, Math.ceil(n / 2)) : perCall));
          expect(counting.scriptCalls).toBe(groups.reduce((sum, { calls }) => sum + scriptCalls(calls.length), 0));
        },
      ),
      { numRuns: 40 },
    );
  });
});
