// What a limiter of several limits accepts and refuses (checkLimitList, the one check every
// backend calls), how it names and sizes its limits, and what a key of several costs.
import { describe, expect, it } from 'vitest';
import { MAX_LIMITS, createLimiter, type LimitSpec, type RatelabErrorCode } from '../../src/index.js';
import { expectRatelabError } from '../support/errors.js';

const SECOND: LimitSpec = { limit: 20, windowMs: 1000 };
const HOUR: LimitSpec = { limit: 1000, windowMs: 3_600_000 };

describe('a list of limits, refused naming the entry', () => {
  const refusals: Array<{ policy: unknown; code: RatelabErrorCode; field: string; says: string; why: string }> = [
    { policy: [], code: 'INVALID_POLICY', field: 'policy', says: 'an empty list', why: 'no limit to enforce' },
    {
      policy: Array.from({ length: MAX_LIMITS + 1 }, (_, i) => ({ limit: 1, windowMs: 1000 * (i + 1) })),
      code: 'INVALID_POLICY',
      field: 'policy',
      says: `expected 1 to ${MAX_LIMITS} limits, got ${MAX_LIMITS + 1}`,
      why: 'each limit is a column set per key and a script argument set in Redis',
    },
    {
      policy: [SECOND, { ...SECOND, limit: 5 }],
      code: 'INVALID_POLICY',
      field: 'policy[1].name',
      says: '"1s" is already the name of policy[0]',
      why: 'two unnamed limits of one window share the default name',
    },
    {
      policy: [
        { ...SECOND, name: 'burst' },
        { ...HOUR, name: 'burst' },
      ],
      code: 'INVALID_POLICY',
      field: 'policy[1].name',
      says: '"burst" is already the name',
      why: 'headers and reports tell limits apart by name',
    },
    {
      policy: [SECOND, { ...HOUR, name: 'hour ly' }],
      code: 'INVALID_POLICY',
      field: 'policy[1].name',
      says: 'letters, digits or ._:-',
      why: 'a name goes into a header parameter and a Redis key',
    },
    {
      policy: [SECOND, { limit: -3, windowMs: 1000 }],
      code: 'INVALID_POLICY',
      field: 'policy[1].limit',
      says: 'got -3',
      why: 'each entry is checked as a policy of its own',
    },
    {
      policy: [SECOND, { ...HOUR, algorithm: 'leaky' }],
      code: 'UNKNOWN_ALGORITHM',
      field: 'policy[1].algorithm',
      says: 'leaky',
      why: 'an entry may name its own algorithm, one of the five',
    },
    {
      policy: [SECOND, { limit: 2_000_000, windowMs: 1000, algorithm: 'sliding-log' }],
      code: 'POLICY_TOO_LARGE',
      field: 'policy[1].limit',
      says: 'sliding-counter for large limits',
      why: "an entry's own algorithm sets its bounds",
    },
    {
      policy: [SECOND, 'hourly'],
      code: 'INVALID_POLICY',
      field: 'policy[1]',
      says: 'got "hourly"',
      why: 'an entry is an object',
    },
  ];
  it.each(refusals)('$field: $why', ({ policy, code, field, says }) => {
    const error = expectRatelabError(() => createLimiter('token-bucket', policy as LimitSpec[]), code, field);
    expect(error.message).toContain(says);
  });
});

describe('the limits a limiter of several reports', () => {
  it('names each limit by its window unless named, with its own algorithm; `limits` is the one of least capacity', () => {
    const limiter = createLimiter('token-bucket', [HOUR, { ...SECOND, algorithm: 'sliding-log', name: 'burst' }]);
    expect(limiter.policies).toEqual([
      { name: '1h', algorithm: 'token-bucket', limit: 1000, windowMs: 3_600_000, capacity: 1000 },
      { name: 'burst', algorithm: 'sliding-log', limit: 20, windowMs: 1000, capacity: 20 },
    ]);
    expect(limiter.limits).toEqual({ limit: 20, windowMs: 1000, capacity: 20 });
  });

  it('a single policy is a list of one named by its window', () => {
    expect(createLimiter('gcra', { limit: 5, windowMs: 60_000 }).policies).toEqual([
      { name: '1m', algorithm: 'gcra', limit: 5, windowMs: 60_000, capacity: 5 },
    ]);
  });
});

describe('what a key of several limits costs', () => {
  it("the sum of its limits' columns and the key's own 8 B of time: no object per key", () => {
    const column = (spec: LimitSpec) => createLimiter(spec.algorithm ?? 'token-bucket', spec).stateBytesPerKey - 8;
    const list: LimitSpec[] = [
      SECOND,
      { ...HOUR, algorithm: 'sliding-counter' },
      { limit: 3, windowMs: 10, algorithm: 'fixed-window' },
    ];
    const expected = list.reduce((sum, spec) => sum + column(spec), 8);
    expect(createLimiter('token-bucket', list).stateBytesPerKey).toBe(expected);
  });
});
