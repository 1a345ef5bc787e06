import { describe, expect, it } from 'vitest';
import { SlidingLog } from '../../src/algorithms/sliding-log.js';
import { checkGoals } from '../../src/bench/goals.js';
import { createLimiter } from '../../src/memory/limiter.js';
import { ALGORITHMS, checkPolicy, limitTooLarge } from '../../src/core/policy.js';
import { SLIDING_LOG_MAX_LIMIT, slidingLogBytes } from '../../src/core/sliding-log-size.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import type { RedisClient } from '../../src/redis/run-script.js';
import { parseTiers } from '../../src/tiers/load-tiers.js';
import { expectRatelabError } from '../support/errors.js';
import { memory, run } from '../bench/sample-runs.js';

const TOO_LARGE = `the sliding log keeps one timestamp per admitted request, so a limit of ${SLIDING_LOG_MAX_LIMIT + 1} would need 9 MiB per key; the most it takes is ${SLIDING_LOG_MAX_LIMIT} (use sliding-counter for large limits)`;

describe('the sliding log’s size rule (src/core/sliding-log-size.ts)', () => {
  it.each([
    { limit: 1, bytes: 21 },
    { limit: 10, bytes: 93 },
    { limit: 100, bytes: 813 },
    { limit: SLIDING_LOG_MAX_LIMIT, bytes: 8 * 2 ** 20 + 13 },
  ])(
    'a limit of $limit keeps at most $bytes B per key (a full ring and 13 B of columns), the meter’s bytes per slot',
    ({ limit, bytes }) => {
      expect(slidingLogBytes(limit)).toBe(bytes);
      expect(new SlidingLog({ limit, windowMs: 1000, capacity: limit }).bytesPerSlot).toBe(bytes);
    },
  );

  it.each(
    ALGORITHMS.flatMap((algorithm) =>
      [SLIDING_LOG_MAX_LIMIT, SLIDING_LOG_MAX_LIMIT + 1].map((limit) => ({ algorithm, limit })),
    ),
  )(
    '$algorithm with a limit of $limit: refused only when the sliding log would outgrow its maximum',
    ({ algorithm, limit }) => {
      const refused = algorithm === 'sliding-log' && limit > SLIDING_LOG_MAX_LIMIT;
      expect(limitTooLarge(algorithm, limit)).toBe(refused ? TOO_LARGE : undefined);
    },
  );

  /** Every place that takes a policy applies the one rule, with its message. */
  const downRedis = {
    evalsha: () => Promise.reject(new Error('down')),
    eval: () => Promise.reject(new Error('down')),
  } as unknown as RedisClient;
  const tooLarge = { limit: SLIDING_LOG_MAX_LIMIT + 1, windowMs: 1000 };
  it.each<[string, () => unknown]>([
    ['checkPolicy', () => checkPolicy(tooLarge, 'sliding-log')],
    ['createLimiter', () => createLimiter('sliding-log', tooLarge)],
    ['createRedisLimiter', () => createRedisLimiter('sliding-log', tooLarge, { redis: downRedis })],
  ])('%s refuses it with POLICY_TOO_LARGE naming policy.limit', (_name, create) => {
    const error = expectRatelabError(create, 'POLICY_TOO_LARGE', 'policy.limit');
    expect(error.message).toBe(`policy.limit: ${TOO_LARGE}`);
  });

  it('a tiers file refuses it with the same words', () => {
    const text = `tiers:\n  logs: { algorithm: sliding-log, limit: ${SLIDING_LOG_MAX_LIMIT + 1}, window: 1s }\ndefault: logs\n`;
    const error = expectRatelabError(() => parseTiers(text, 'tiers.yaml'), 'INVALID_TIERS');
    expect(error.problems).toEqual([`tiers.yaml:2: tiers.logs.limit: ${TOO_LARGE}`]);
  });

  it.each<{ limit: number; bytes: number; met: boolean }>([
    { limit: 10, bytes: 144, met: true },
    { limit: 10, bytes: 145, met: false },
    { limit: 100, bytes: 864, met: true },
  ])(
    'bench’s memory goal at limit $limit (8 B per unit + 64 B): $bytes B per key is met: $met',
    ({ limit, bytes, met }) => {
      const goal = checkGoals(run([memory('sliding-log', bytes)]), limit).find((check) =>
        check.goal.startsWith('sliding-log memory'),
      );
      expect(goal).toMatchObject({ target: `<= ${8 * limit + 64} B`, met });
    },
  );
});
