import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, ManualClock, createLimiter, type Decision } from '../../src/index.js';
import { rateLimitHeaders, retryAfterSeconds, sfString } from '../../src/http/headers.js';

const limits = { limit: 10, windowMs: 1000, capacity: 10 };
const decision = (d: Partial<Decision>): Decision => ({
  allowed: true,
  limit: 10,
  remaining: 9,
  retryAfterMs: 0,
  resetMs: 100,
  ...d,
});
const asMap = (fields: readonly (readonly [string, string])[]) => Object.fromEntries(fields);

describe('Retry-After (RFC 9110 10.2.3: whole seconds)', () => {
  it.each([
    [1, 1],
    [999, 1],
    [1000, 1],
    [1001, 2],
    [2500, 3],
    [60_000, 60],
    [0, 1], // denied yet told 0 would invite an immediate retry: at least 1
    [Infinity, undefined], // can never be admitted: no Retry-After at all
  ])('retryAfterMs %s -> %s', (ms, seconds) => {
    expect(retryAfterSeconds(ms)).toBe(seconds);
  });

  it.each(ALGORITHMS)(
    '%s: waiting Retry-After seconds admits the same request (never earlier than the quota returns)',
    (algorithm) => {
      fc.assert(
        fc.property(
          fc.array(fc.integer({ min: 0, max: 700 }), { minLength: 1, maxLength: 40 }),
          fc.integer({ min: 1, max: 3 }),
          (gaps, cost) => {
            const clock = new ManualClock(1_000_000);
            const limiter = createLimiter(algorithm, { limit: 4, windowMs: 1500, burst: 5 }, { clock });
            for (const gap of gaps) {
              clock.advance(gap);
              const d = limiter.consume('k', cost);
              if (d.allowed) continue;
              const wait = Number(asMap(rateLimitHeaders(d, { name: 'p', limits: limiter.limits }))['Retry-After']);
              clock.advance(wait * 1000);
              expect(limiter.consume('k', cost).allowed).toBe(true);
            }
          },
        ),
        { numRuns: 200 },
      );
    },
  );
});

describe('rateLimitHeaders', () => {
  it('sends the X-RateLimit-* fields by default, from the decision', () => {
    expect(rateLimitHeaders(decision({ remaining: 7, resetMs: 2001 }), { name: 'p', limits })).toEqual([
      ['X-RateLimit-Limit', '10'],
      ['X-RateLimit-Remaining', '7'],
      ['X-RateLimit-Reset', '3'],
    ]);
  });

  it('adds Retry-After to a denial and t equals it', () => {
    const fields = asMap(
      rateLimitHeaders(
        decision({ allowed: false, remaining: 0, retryAfterMs: 1200, resetMs: 9000 }),
        { name: 'free', limits },
        { ietf: true },
      ),
    );
    expect(fields).toEqual({
      'X-RateLimit-Limit': '10',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': '9',
      'RateLimit-Policy': '"free";q=10;w=1',
      RateLimit: '"free";r=0;t=2',
      'Retry-After': '2',
    });
  });

  it.each([
    [
      'an admitted request: t is the time until the full quota',
      decision({ remaining: 3, resetMs: 700 }),
      '"free";r=3;t=1',
    ],
    ['a full quota: nothing to restore, no t', decision({ remaining: 10, resetMs: 0 }), '"free";r=10'],
    [
      'a cost that can never pass: no t',
      decision({ allowed: false, remaining: 10, retryAfterMs: Infinity, resetMs: 0 }),
      '"free";r=10',
    ],
    ['a fractional remaining (never sent): floored', decision({ remaining: 2.9 }), '"free";r=2;t=1'],
  ])('RateLimit for %s', (_, d, expected) => {
    expect(asMap(rateLimitHeaders(d, { name: 'free', limits }, { ietf: true, legacy: false }))).toMatchObject({
      RateLimit: expected,
    });
  });

  it.each([
    ['a whole-second window', { limit: 100, windowMs: 60_000, capacity: 100 }, '"p";q=100;w=60'],
    ['a sub-second window: no w (the draft has no fractions)', { limit: 5, windowMs: 250, capacity: 5 }, '"p";q=5'],
    ['a bucket with a burst', { limit: 10, windowMs: 1000, capacity: 25 }, '"p";q=10;w=1;ratelab-burst=25'],
  ])('RateLimit-Policy for %s', (_, policyLimits, expected) => {
    expect(
      asMap(rateLimitHeaders(decision({}), { name: 'p', limits: policyLimits }, { ietf: true }))['RateLimit-Policy'],
    ).toBe(expected);
  });

  it('leaves out RateLimit-Policy when the limiter does not tell its limits, and legacy fields when asked', () => {
    expect(
      rateLimitHeaders(decision({ remaining: 4 }), { name: 'p', limits: undefined }, { ietf: true, legacy: false }),
    ).toEqual([['RateLimit', '"p";r=4;t=1']]);
  });

  it('sends nothing for an unlimited decision', () => {
    expect(
      rateLimitHeaders(
        decision({ limit: Infinity, remaining: Infinity, resetMs: 0 }),
        { name: 'p', limits: undefined },
        { ietf: true },
      ),
    ).toEqual([]);
  });

  it('writes policy names as Structured Field strings, refusing what cannot be one', () => {
    expect(sfString('a "b" \\c')).toBe('"a \\"b\\" \\\\c"');
    expect(() => sfString('café')).toThrow(/printable ASCII/);
  });
});

describe('rateLimitHeaders: several limits on one key', () => {
  // burst 3/1s and hourly 5/1h, both sliding logs, so every figure below is a count of requests.
  const clock = new ManualClock(0);
  const limiter = createLimiter(
    'sliding-log',
    [
      { limit: 3, windowMs: 1000, name: 'burst' },
      { limit: 5, windowMs: 3_600_000, name: 'hourly' },
    ],
    { clock },
  );
  const policy = { name: 'default', limits: limiter.limits, policies: limiter.policies };
  const POLICY = '"burst";q=3;w=1, "hourly";q=5;w=3600';

  it.each([
    {
      at: 0,
      requests: 1,
      why: 'admitted: X-RateLimit-* show the limit with the least remaining, the burst one',
      fields: { limit: '3', remaining: '2', reset: '1', rateLimit: '"burst";r=2;t=1, "hourly";r=4;t=3600' },
    },
    {
      at: 0,
      requests: 2,
      why: 'the burst limit is used up; the hourly one still has 2',
      fields: { limit: '3', remaining: '0', reset: '1', rateLimit: '"burst";r=0;t=1, "hourly";r=2;t=3600' },
    },
    {
      at: 0,
      requests: 1,
      why: 'denied by the short limit: Retry-After is its wait; the hourly one took nothing (r=2 still)',
      fields: {
        limit: '3',
        remaining: '0',
        reset: '1',
        rateLimit: '"burst";r=0;t=1, "hourly";r=2;t=3600',
        retryAfter: '1',
      },
    },
    {
      at: 1000,
      requests: 2,
      why: 'admitted with the hourly limit now the tighter: X-RateLimit-* switch to it',
      fields: { limit: '5', remaining: '0', reset: '3600', rateLimit: '"burst";r=1;t=1, "hourly";r=0;t=3600' },
    },
    {
      at: 2000,
      requests: 1,
      why: 'denied by the long limit: Retry-After is its wait (the first hour ends at 3600 s); burst is full (no t)',
      fields: {
        limit: '5',
        remaining: '0',
        reset: '3599',
        rateLimit: '"burst";r=3, "hourly";r=0;t=3598',
        retryAfter: '3598',
      },
    },
  ])('at $at ms, $requests request(s): $why', ({ at, requests, fields }) => {
    clock.advance(at - clock.now());
    let last: Decision | undefined;
    for (let i = 0; i < requests; i++) last = limiter.consume('k');
    const sent = asMap(rateLimitHeaders(last as Decision, policy, { ietf: true }));
    expect(sent).toEqual({
      'X-RateLimit-Limit': fields.limit,
      'X-RateLimit-Remaining': fields.remaining,
      'X-RateLimit-Reset': fields.reset,
      'RateLimit-Policy': POLICY,
      RateLimit: fields.rateLimit,
      ...(fields.retryAfter === undefined ? {} : { 'Retry-After': fields.retryAfter }),
    });
  });

  it('names a limit given no name by its window, and leaves out RateLimit-Policy when the policies are unknown', () => {
    const unnamed = createLimiter(
      'token-bucket',
      [
        { limit: 2, windowMs: 1000 },
        { limit: 100, windowMs: 86_400_000 },
      ],
      {
        clock: new ManualClock(0),
      },
    );
    const first = unnamed.consume('k');
    expect(
      asMap(rateLimitHeaders(first, { name: 'x', limits: unnamed.limits, policies: unnamed.policies }, { ietf: true })),
    ).toMatchObject({ 'RateLimit-Policy': '"1s";q=2;w=1, "1d";q=100;w=86400' });
    const fields = asMap(rateLimitHeaders(first, { name: 'x', limits: unnamed.limits }, { ietf: true }));
    expect(fields['RateLimit-Policy']).toBeUndefined();
    // The daily bucket refills one token per 864 s.
    expect(fields.RateLimit).toBe('"1s";r=1;t=1, "1d";r=99;t=864');
  });
});
