import { describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  MAX_LIMIT,
  ManualClock,
  SLIDING_LOG_MAX_LIMIT,
  checkPolicy,
  createLimiter,
  formatDuration,
  parseDuration,
  type Algorithm,
  type Policy,
} from '../src/index.js';
import { expectRatelabError } from './support/errors.js';

const BAD_WHOLE_NUMBERS: [string, unknown][] = [
  ['0', 0],
  ['a negative', -3],
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['a fraction', 1.5],
  ['a string', '10'],
  ['missing', undefined],
];

describe('bad policies throw INVALID_POLICY naming the field, at construction', () => {
  describe.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s', (algorithm) => {
    it.each(BAD_WHOLE_NUMBERS)('limit %s', (_name, value) => {
      const error = expectRatelabError(
        () => createLimiter(algorithm, { limit: value, windowMs: 1000 } as Policy),
        'INVALID_POLICY',
        'policy.limit',
      );
      expect(error.message).toBe(
        `policy.limit: expected a whole number from 1 to ${MAX_LIMIT}, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`,
      );
    });

    it.each(BAD_WHOLE_NUMBERS)('windowMs %s', (_name, value) => {
      expectRatelabError(
        () => createLimiter(algorithm, { limit: 10, windowMs: value } as Policy),
        'INVALID_POLICY',
        'policy.windowMs',
      );
    });

    it.each(BAD_WHOLE_NUMBERS.filter(([name]) => name !== 'missing'))('burst %s', (_name, value) => {
      expectRatelabError(
        () => createLimiter(algorithm, { limit: 10, windowMs: 1000, burst: value } as Policy),
        'INVALID_POLICY',
        'policy.burst',
      );
    });
  });

  it('a limit above 2^32 - 1 (counters are 32-bit)', () => {
    expectRatelabError(
      () => createLimiter('fixed-window', { limit: MAX_LIMIT + 1, windowMs: 1000 }),
      'INVALID_POLICY',
      'policy.limit',
    );
  });

  it('a policy that is not an object', () => {
    expectRatelabError(() => createLimiter('token-bucket', null as unknown as Policy), 'INVALID_POLICY', 'policy');
  });

  it('checkPolicy names the field under the caller’s path', () => {
    expectRatelabError(
      () => checkPolicy({ limit: 10, windowMs: -1 }, 'gcra', 'tiers.free'),
      'INVALID_POLICY',
      'tiers.free.windowMs',
    );
  });

  it('an unknown algorithm throws UNKNOWN_ALGORITHM listing the known ones', () => {
    const error = expectRatelabError(
      () => createLimiter('leaky-bucket' as Algorithm, { limit: 1, windowMs: 1000 }),
      'UNKNOWN_ALGORITHM',
      'algorithm',
    );
    expect(error.message).toBe(
      'algorithm: expected one of token-bucket, gcra, sliding-log, sliding-counter, fixed-window, got "leaky-bucket"',
    );
  });

  it('a sliding log with a limit too large for one timestamp per request throws POLICY_TOO_LARGE', () => {
    const error = expectRatelabError(
      () => createLimiter('sliding-log', { limit: SLIDING_LOG_MAX_LIMIT + 1, windowMs: 1000 }),
      'POLICY_TOO_LARGE',
      'policy.limit',
    );
    expect(error.message).toContain('use sliding-counter');
    expect(createLimiter('sliding-counter', { limit: SLIDING_LOG_MAX_LIMIT + 1, windowMs: 1000 }).limits.limit).toBe(
      SLIDING_LOG_MAX_LIMIT + 1,
    );
  });
});

describe('a window too long to decide exactly throws POLICY_TOO_LARGE naming windowMs', () => {
  // Token bucket and GCRA keep capacity * windowMs, the sliding counter 2 * limit * windowMs:
  // beyond 2^53 those are not exact integers.
  const DAY = 86_400_000;

  it.each([
    [
      'token-bucket',
      { limit: MAX_LIMIT, windowMs: DAY },
      'token-bucket with a capacity of 4294967295 is exact up to a window of 2097152 ms (2097.152s), got 86400000',
    ],
    [
      'gcra',
      { limit: 10, windowMs: DAY, burst: MAX_LIMIT },
      'gcra with a capacity of 4294967295 is exact up to a window of 2097152 ms (2097.152s), got 86400000',
    ],
    [
      'sliding-counter',
      { limit: MAX_LIMIT, windowMs: 3_600_000 },
      'sliding-counter with a limit of 4294967295 is exact up to a window of 1048576 ms (1048.576s), got 3600000',
    ],
  ] as [Algorithm, Policy, string][])('%s %o', (algorithm, policy, message) => {
    const error = expectRatelabError(() => createLimiter(algorithm, policy), 'POLICY_TOO_LARGE', 'policy.windowMs');
    expect(error.message).toBe(`policy.windowMs: ${message}; use a shorter window with a proportionally smaller limit`);
  });

  it('accepts the longest exact window, and any window for the counting algorithms', () => {
    expect(createLimiter('token-bucket', { limit: MAX_LIMIT, windowMs: 2_097_152 }).limits.windowMs).toBe(2_097_152);
    expect(createLimiter('sliding-counter', { limit: MAX_LIMIT, windowMs: 1_048_576 }).limits.windowMs).toBe(1_048_576);
    expect(createLimiter('fixed-window', { limit: MAX_LIMIT, windowMs: DAY * 365 }).limits.windowMs).toBe(DAY * 365);
    expect(createLimiter('sliding-log', { limit: 10, windowMs: DAY * 365 }).limits.windowMs).toBe(DAY * 365);
    expect(createLimiter('token-bucket', { limit: 1_000_000, windowMs: DAY }).limits.capacity).toBe(1_000_000);
  });
});

describe('bad costs throw INVALID_COST and change nothing', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s', (algorithm) => {
    const limiter = createLimiter(algorithm, { limit: 3, windowMs: 1000 }, { clock: new ManualClock(0) });
    limiter.consume('k', 1);
    for (const cost of [-1, 1.5, NaN, Infinity, 2 ** 53]) {
      const error = expectRatelabError(() => limiter.consume('k', cost), 'INVALID_COST', 'cost');
      expect(error.message).toBe(`cost: expected a whole number >= 0, got ${cost}`);
    }
    expectRatelabError(() => limiter.consume('k', '1' as unknown as number), 'INVALID_COST', 'cost');
    expect(limiter.consume('k', 0).remaining).toBe(2);
  });
});

describe('bad limiter options throw INVALID_ARGUMENT', () => {
  it.each([
    ['idleMs', { idleMs: 0 }],
    ['idleMs', { idleMs: -5 }],
    ['idleMs', { idleMs: NaN }],
    ['maxKeys', { maxKeys: 0 }],
    ['maxKeys', { maxKeys: 1.5 }],
    ['maxKeys', { maxKeys: NaN }],
  ])('%s %o', (field, options) => {
    expectRatelabError(
      () => createLimiter('token-bucket', { limit: 1, windowMs: 1000 }, options),
      'INVALID_ARGUMENT',
      field,
    );
  });
});

describe('ManualClock', () => {
  it('moves only when told, backwards too', () => {
    const clock = new ManualClock(5);
    clock.advance(10);
    expect(clock.now()).toBe(15);
    clock.set(-3);
    expect(clock.now()).toBe(-3);
    expect(new ManualClock().now()).toBe(0);
  });

  it('refuses times that are not finite and negative advances', () => {
    expectRatelabError(() => new ManualClock(NaN), 'INVALID_ARGUMENT', 'startMs');
    expectRatelabError(() => new ManualClock(0).set(Infinity), 'INVALID_ARGUMENT', 'ms');
    expectRatelabError(() => new ManualClock(0).advance(-1), 'INVALID_ARGUMENT', 'ms');
    expectRatelabError(() => new ManualClock(0).advance(NaN), 'INVALID_ARGUMENT', 'ms');
  });
});

describe('durations', () => {
  it.each([
    ['250ms', 250],
    ['1s', 1000],
    ['1.5s', 1500],
    [' 2s ', 2000],
    ['1m', 60_000],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    ['1000', 1000],
    [250, 250],
  ] as [string | number, number][])('%j is %d ms', (input, ms) => {
    expect(parseDuration(input)).toBe(ms);
  });

  it.each([['0s'], ['-1s'], ['1.0005s'], ['1 week'], [''], ['ms'], [0], [-5], [1.5], [NaN], [Infinity]] as [
    string | number,
  ][])('%j is refused with INVALID_DURATION naming the field', (input) => {
    const error = expectRatelabError(
      () => parseDuration(input, 'tiers.free.window'),
      'INVALID_DURATION',
      'tiers.free.window',
    );
    expect(error.message).toContain('expected a duration such as 250ms, 1s, 1m or 1h');
  });

  it.each([
    [250, '250ms'],
    [1500, '1.5s'],
    [16_086, '16.086s'],
    [1_247, '1.247s'],
    [1_247.5, '1247.5ms'],
    [60_000, '1m'],
    [90_000, '1.5m'],
    [3_600_000, '1h'],
    [86_400_000, '1d'],
    [Infinity, 'Infinity'],
  ])('formats %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
