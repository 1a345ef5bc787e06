import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conventionGroup, readAnnouncement, type Announcement } from '../../src/core/header-fields.js';
import { rateLimitHeaders } from '../../src/http/headers.js';
import { listenOnLoopback } from '../support/listen-app.js';

/** When the request was sent: 2025-12-02T00:41:09.000Z. */
const SENT = 1_764_636_069_000;
const SENT_SECONDS = SENT / 1000;

/** A response's fields by lower-case name, as the probe client keeps them. */
function lowerCase(fields: Iterable<readonly [string, string]>): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of fields) {
    if (conventionGroup(name.toLowerCase()) !== undefined) headers[name.toLowerCase()] = value;
  }
  return headers;
}

describe('readAnnouncement: Retry-After (RFC 9110 10.2.3)', () => {
  it.each([
    { value: '5', retryAfterMs: 5000, malformed: [], why: 'delay-seconds' },
    {
      value: ' 0 ',
      retryAfterMs: 0,
      malformed: [],
      why: 'zero is a valid delay (whether it tells the truth is for the verdicts)',
    },
    {
      value: '734',
      retryAfterMs: 734_000,
      malformed: [],
      why: 'a wait written in ms reads as 734 s: well-formed; the verdicts catch the unit against the measured recovery',
    },
    {
      value: 'Tue, 02 Dec 2025 00:41:12 GMT',
      retryAfterMs: 3000,
      malformed: [],
      why: 'an IMF-fixdate, taken relative to when the request was sent',
    },
    { value: 'Tuesday, 02-Dec-25 00:41:12 GMT', retryAfterMs: 3000, malformed: [], why: 'the obsolete RFC 850 date' },
    { value: 'Tue Dec  2 00:41:12 2025', retryAfterMs: 3000, malformed: [], why: 'the obsolete asctime date: GMT' },
    {
      value: 'Tue, 02 Dec 2025 00:41:08 GMT',
      retryAfterMs: -1000,
      malformed: [],
      why: 'a date already past reads as a negative wait',
    },
    {
      value: '0.25',
      retryAfterMs: 250,
      malformed: ['Retry-After'],
      why: "rate-limiter-flexible's README sends msBeforeNext / 1000: a fraction is malformed, read as 250 ms",
    },
    { value: 'soon', retryAfterMs: undefined, malformed: ['Retry-After'], why: 'junk: malformed, no wait' },
    { value: '-1', retryAfterMs: undefined, malformed: ['Retry-After'], why: 'a negative delay is junk' },
    {
      value: '2025-12-02T00:41:12Z',
      retryAfterMs: 3000,
      malformed: ['Retry-After'],
      why: 'an ISO date is not an HTTP-date: malformed, read anyway',
    },
  ])('Retry-After: $value -> $retryAfterMs ms ($why)', ({ value, retryAfterMs, malformed }) => {
    const announcement = readAnnouncement({ 'retry-after': value }, SENT);
    expect(announcement.retryAfterMs).toBe(retryAfterMs);
    expect(announcement.fields.retryAfter).toBe(retryAfterMs === undefined ? undefined : 'Retry-After');
    expect(announcement.malformed.map((m) => m.field)).toEqual(malformed);
  });

  it('a malformed value says what is wrong and how it was read', () => {
    expect(readAnnouncement({ 'retry-after': '0.25' }, SENT).malformed).toEqual([
      {
        field: 'Retry-After',
        value: '0.25',
        why: 'a fraction: delay-seconds is a whole number (RFC 9110 10.2.3); read as 250 ms',
      },
    ]);
  });
});

describe('readAnnouncement: X-RateLimit-Reset is told apart by its magnitude', () => {
  it.each([
    { value: '30', resetMs: 30_000, form: 'delay-seconds', why: 'seconds from now' },
    {
      value: '1.5',
      resetMs: 1500,
      form: 'delay-seconds',
      why: 'a fraction of seconds is not refused in the de facto field',
    },
    {
      value: String(SENT_SECONDS + 30),
      resetMs: 30_000,
      form: 'epoch-seconds',
      why: "above 1e9: epoch seconds (express-rate-limit's legacy field)",
    },
    { value: String(SENT + 2500), resetMs: 2500, form: 'epoch-ms', why: 'above 1e12: epoch ms' },
    {
      value: new Date(SENT + 2000).toString(),
      resetMs: 2000,
      form: 'date',
      why: "rate-limiter-flexible's README example sends new Date(...): Date#toString",
    },
    { value: new Date(SENT + 2500).toISOString(), resetMs: 2500, form: 'date', why: 'an ISO date (JSON of a Date)' },
    { value: '2025-12-02T00:41:11', resetMs: 2000, form: 'date', why: 'an ISO date without a zone is UTC' },
    { value: new Date(SENT + 2000).toUTCString(), resetMs: 2000, form: 'date', why: 'an HTTP-date' },
  ])('X-RateLimit-Reset: $value -> $resetMs ms, $form ($why)', ({ value, resetMs, form }) => {
    const announcement = readAnnouncement({ 'x-ratelimit-reset': value }, SENT);
    expect(announcement).toMatchObject({ resetMs, resetForm: form, fields: { reset: 'X-RateLimit-Reset' } });
    expect(announcement.malformed).toEqual([]);
  });

  it('junk in X-RateLimit-Reset is malformed and gives no reset', () => {
    const announcement = readAnnouncement({ 'x-ratelimit-reset': 'later' }, SENT);
    expect(announcement.resetMs).toBeUndefined();
    expect(announcement.malformed).toEqual([
      { field: 'X-RateLimit-Reset', value: 'later', why: 'neither seconds, an epoch time nor a date' },
    ]);
  });
});

describe('readAnnouncement: each convention into one shape', () => {
  const cases: { name: string; headers: Record<string, string>; expected: Partial<Announcement>; why: string }[] = [
    {
      name: 'X-RateLimit-*',
      headers: { 'x-ratelimit-limit': '10', 'x-ratelimit-remaining': '7', 'x-ratelimit-reset': '3' },
      expected: {
        limit: 10,
        remaining: 7,
        resetMs: 3000,
        fields: { limit: 'X-RateLimit-Limit', remaining: 'X-RateLimit-Remaining', reset: 'X-RateLimit-Reset' },
      },
      why: 'the de facto fields',
    },
    {
      name: 'X-Rate-Limit-*',
      headers: { 'x-rate-limit-limit': '10', 'x-rate-limit-remaining': '7', 'x-rate-limit-reset': '3' },
      expected: {
        limit: 10,
        remaining: 7,
        resetMs: 3000,
        fields: { limit: 'X-Rate-Limit-Limit', remaining: 'X-Rate-Limit-Remaining', reset: 'X-Rate-Limit-Reset' },
      },
      why: 'the hyphenated spelling, named as sent',
    },
    {
      name: 'draft-06 fields',
      headers: {
        'ratelimit-limit': '100',
        'ratelimit-remaining': '99',
        'ratelimit-reset': '60',
        'ratelimit-policy': '100;w=60',
      },
      expected: {
        limit: 100,
        remaining: 99,
        resetMs: 60_000,
        policies: [{ quota: 100, windowMs: 60_000 }],
        fields: {
          limit: 'RateLimit-Limit',
          remaining: 'RateLimit-Remaining',
          reset: 'RateLimit-Reset',
          policy: 'RateLimit-Policy',
        },
      },
      why: 'separate fields; the policy is a list whose items are the quota',
    },
    {
      name: 'draft-07 dictionary',
      headers: { ratelimit: 'limit=100, remaining=99, reset=5', 'ratelimit-policy': '100;w=60' },
      expected: {
        limit: 100,
        remaining: 99,
        resetMs: 5000,
        policies: [{ quota: 100, windowMs: 60_000 }],
        fields: {
          limit: 'RateLimit limit',
          remaining: 'RateLimit remaining',
          reset: 'RateLimit reset',
          policy: 'RateLimit-Policy',
        },
      },
      why: 'one field, named by its key in the verdicts',
    },
    {
      name: 'draft-10 items',
      headers: { ratelimit: '"burst";r=50;t=30', 'ratelimit-policy': '"burst";q=100;w=60' },
      expected: {
        remaining: 50,
        resetMs: 30_000,
        policies: [{ quota: 100, windowMs: 60_000, name: 'burst' }],
        fields: { remaining: 'RateLimit r', reset: 'RateLimit t', policy: 'RateLimit-Policy' },
      },
      why: 'r and t of a named item; the quota is only in the policy',
    },
    {
      name: 'draft-10, several policies',
      headers: {
        ratelimit: '"day";r=900;t=3000, "second";r=0;t=1',
        'ratelimit-policy': '"second";q=10;w=1, "day";q=1000;w=86400',
      },
      expected: {
        remaining: 0,
        resetMs: 1000,
        policies: [
          { quota: 10, windowMs: 1000, name: 'second' },
          { quota: 1000, windowMs: 86_400_000, name: 'day' },
        ],
      },
      why: 'the binding item (the least remaining) speaks for the response',
    },
    {
      name: 'draft-10, token names and spaces',
      headers: { ratelimit: 'default; r=3; t=2', 'ratelimit-policy': 'default; q=5; w=2; qu="requests"' },
      expected: { remaining: 3, resetMs: 2000, policies: [{ quota: 5, windowMs: 2000, name: 'default' }] },
      why: 'a token is a name too (and it also parses as a dictionary: not taken for draft-07, which has no such keys)',
    },
    {
      name: 'draft-06/07 list of policies',
      headers: { 'ratelimit-policy': '10;w=1, 1000;w=3600' },
      expected: {
        policies: [
          { quota: 10, windowMs: 1000 },
          { quota: 1000, windowMs: 3_600_000 },
        ],
      },
      why: 'several policies in one field',
    },
    {
      name: 'policy without a window',
      headers: { 'ratelimit-policy': '"free";q=10' },
      expected: { policies: [{ quota: 10, name: 'free' }] },
      why: 'w is optional: the window stays unknown',
    },
    {
      name: 'all at once',
      headers: {
        'retry-after': '2',
        'x-ratelimit-limit': '40',
        'x-ratelimit-remaining': '0',
        'x-ratelimit-reset': '2',
        ratelimit: '"p";r=0;t=2',
        'ratelimit-policy': '"p";q=20;w=1',
      },
      expected: {
        retryAfterMs: 2000,
        limit: 40,
        remaining: 0,
        resetMs: 2000,
        fields: {
          retryAfter: 'Retry-After',
          limit: 'X-RateLimit-Limit',
          remaining: 'RateLimit r',
          reset: 'RateLimit t',
          policy: 'RateLimit-Policy',
        },
      },
      why: 'the newest convention is preferred for each figure; every field stays in readings',
    },
    {
      name: 'nginx limit_req',
      headers: {},
      expected: { policies: [], readings: [], malformed: [], fields: {} },
      why: 'nginx sends no rate-limit fields at all: nothing is announced',
    },
  ];

  it.each(cases)('$name: $why', ({ headers, expected }) => {
    expect(readAnnouncement(headers, SENT)).toMatchObject(expected);
  });

  it('every field keeps its own reading, in a fixed order (Retry-After, X-RateLimit-*, IETF)', () => {
    const announcement = readAnnouncement(
      { 'retry-after': '2', 'x-ratelimit-remaining': '0', ratelimit: '"p";r=0;t=2', 'ratelimit-reset': '2' },
      SENT,
    );
    expect(announcement.readings.map((r) => [r.field, r.figure, r.value])).toEqual([
      ['Retry-After', 'retryAfter', 2000],
      ['X-RateLimit-Remaining', 'remaining', 0],
      ['RateLimit-Reset', 'reset', 2000],
      ['RateLimit r', 'remaining', 0],
      ['RateLimit t', 'reset', 2000],
    ]);
  });
});

describe('readAnnouncement: what cannot be read is malformed, never thrown', () => {
  it.each([
    { headers: { 'x-ratelimit-limit': '10.5' }, field: 'X-RateLimit-Limit', why: 'a count is a whole number' },
    { headers: { 'x-ratelimit-remaining': '-1' }, field: 'X-RateLimit-Remaining', why: 'a count is never negative' },
    { headers: { 'ratelimit-reset': '2.5' }, field: 'RateLimit-Reset', why: 'draft-06 asks whole delta-seconds' },
    {
      headers: { 'ratelimit-reset': String(SENT_SECONDS + 5) },
      field: 'RateLimit-Reset',
      why: 'an epoch time where draft-06 asks delta-seconds (read anyway)',
    },
    { headers: { ratelimit: 'limit=100, remaining=x' }, field: 'RateLimit remaining', why: 'a token, not a count' },
    { headers: { ratelimit: '"p";r=-1' }, field: 'RateLimit r', why: 'a negative remaining' },
    { headers: { ratelimit: '"p";r=1,' }, field: 'RateLimit', why: 'a trailing comma (RFC 9651 4.2.1)' },
    { headers: { ratelimit: '(a b);r=1' }, field: 'RateLimit', why: 'an inner list is not a policy name' },
    { headers: { ratelimit: '"unterminated;r=1' }, field: 'RateLimit', why: 'an unterminated string' },
    { headers: { ratelimit: '"p";r=1234567890123456' }, field: 'RateLimit', why: 'an integer of 16 digits' },
    { headers: { 'ratelimit-policy': '"p";w=60' }, field: 'RateLimit-Policy', why: 'a named policy without q' },
    { headers: { 'ratelimit-policy': '?1;w=60' }, field: 'RateLimit-Policy', why: 'neither a quota nor a name' },
    { headers: { 'ratelimit-policy': '100;w="60"' }, field: 'RateLimit-Policy', why: 'w a string, not a number' },
  ] as { headers: Record<string, string>; field: string; why: string }[])('$field: $why', ({ headers, field }) => {
    const announcement = readAnnouncement(headers, SENT);
    expect(announcement.malformed.map((m) => m.field)).toEqual([field]);
    expect(announcement.malformed[0]?.value).toBe(Object.values(headers)[0]);
  });

  it('an epoch RateLimit-Reset is still read for its wait', () => {
    expect(readAnnouncement({ 'ratelimit-reset': String(SENT_SECONDS + 5) }, SENT).resetMs).toBe(5000);
  });
});

describe("readAnnouncement: ratelab's own fields (src/http/headers.ts)", () => {
  const limits = { limit: 20, windowMs: 1000, capacity: 40 };
  const policy = { name: 'free', limits };

  it('a denial: X-RateLimit-Reset is the time until the full quota, RateLimit t equals Retry-After', () => {
    const decision = { allowed: false, limit: 40, remaining: 0, retryAfterMs: 1200, resetMs: 2000 };
    const fields = rateLimitHeaders(decision, policy, { ietf: true });
    expect(readAnnouncement(lowerCase(fields), SENT)).toMatchObject({
      retryAfterMs: 2000,
      limit: 40,
      remaining: 0,
      resetMs: 2000,
      fields: { retryAfter: 'Retry-After', limit: 'X-RateLimit-Limit', remaining: 'RateLimit r', reset: 'RateLimit t' },
      policies: [{ quota: 20, windowMs: 1000, name: 'free', burst: 40 }],
      malformed: [],
    });
  });

  it('an admission: no Retry-After, every figure read', () => {
    const decision = { allowed: true, limit: 40, remaining: 12.6, retryAfterMs: 0, resetMs: 1370 };
    const announcement = readAnnouncement(lowerCase(rateLimitHeaders(decision, policy, { ietf: true })), SENT);
    expect(announcement.retryAfterMs).toBeUndefined();
    expect(announcement.readings.map((r) => [r.field, r.value])).toEqual([
      ['X-RateLimit-Limit', 40],
      ['X-RateLimit-Remaining', 12],
      ['X-RateLimit-Reset', 2000],
      ['RateLimit r', 12],
      ['RateLimit t', 2000],
    ]);
  });
});

describe("readAnnouncement: rate-limiter-flexible's README headers", () => {
  it('Retry-After msBeforeNext / 1000 (a fraction: malformed), X-RateLimit-Reset in epoch seconds', async () => {
    const points = 2;
    const limiter = new RateLimiterMemory({ points, duration: 60 });
    await limiter.consume('k');
    await limiter.consume('k');
    const denial: { msBeforeNext: number; remainingPoints: number } = await limiter.consume('k').then(
      () => expect.fail('the third request within the window is denied'),
      (res: { msBeforeNext: number; remainingPoints: number }) => res,
    );
    const now = Date.now();
    const headers = {
      'retry-after': String(denial.msBeforeNext / 1000),
      'x-ratelimit-limit': String(points),
      'x-ratelimit-remaining': String(denial.remainingPoints),
      'x-ratelimit-reset': String(Math.ceil((now + denial.msBeforeNext) / 1000)),
    };
    const announcement = readAnnouncement(headers, now);
    expect(announcement).toMatchObject({ limit: 2, remaining: 0, resetForm: 'epoch-seconds' });
    expect(announcement.retryAfterMs).toBeCloseTo(denial.msBeforeNext, 6);
    expect(announcement.resetMs).toBeGreaterThanOrEqual(denial.msBeforeNext);
    expect(announcement.resetMs).toBeLessThan(denial.msBeforeNext + 1000);
    expect(announcement.malformed.map((m) => m.field)).toEqual(
      Number.isInteger(denial.msBeforeNext / 1000) ? [] : ['Retry-After'],
    );
  });

  it("its older README's X-RateLimit-Reset: new Date(...), sent as Date#toString", () => {
    const headers = { 'x-ratelimit-reset': String(new Date(SENT + 59_000)) };
    expect(readAnnouncement(headers, SENT)).toMatchObject({ resetMs: 59_000, resetForm: 'date' });
  });
});

describe("readAnnouncement: express-rate-limit's actual output (a real app on loopback)", () => {
  const LIMIT = 2;
  let origin = '';
  let close: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const app = express();
    for (const draft of ['draft-6', 'draft-7', 'draft-8'] as const) {
      const limiter = rateLimit({ windowMs: 60_000, limit: LIMIT, standardHeaders: draft, legacyHeaders: true });
      app.get(`/${draft}`, limiter, (_req, res) => {
        res.send('ok');
      });
    }
    ({ origin, close } = await listenOnLoopback(app));
  });
  afterAll(() => close());

  /** Requests until one past the limit: the fields of the first admission and of the denial. */
  async function firstAndDenial(path: string) {
    const responses: { status: number; headers: Record<string, string>; epochMs: number }[] = [];
    for (let i = 0; i <= LIMIT; i++) {
      const epochMs = Date.now();
      const res = await fetch(origin + path);
      await res.text();
      responses.push({ status: res.status, headers: lowerCase(res.headers), epochMs });
    }
    const [first, denial] = [responses[0]!, responses[LIMIT]!];
    expect([first.status, denial.status]).toEqual([200, 429]);
    return { first, denial };
  }

  it('draft-6: RateLimit-Limit/-Remaining/-Reset, RateLimit-Policy "2;w=60", and the legacy fields', async () => {
    const { first, denial } = await firstAndDenial('/draft-6');
    expect(first.headers['ratelimit-policy']).toBe('2;w=60');
    const read = readAnnouncement(first.headers, first.epochMs);
    expect(read).toMatchObject({ limit: 2, remaining: 1, policies: [{ quota: 2, windowMs: 60_000 }], malformed: [] });
    expect(read.fields).toMatchObject({ limit: 'RateLimit-Limit', remaining: 'RateLimit-Remaining' });
    expect(read.readings.find((r) => r.field === 'X-RateLimit-Reset')?.form).toBe('epoch-seconds');
    const denied = readAnnouncement(denial.headers, denial.epochMs);
    expect(denied).toMatchObject({ remaining: 0, fields: { retryAfter: 'Retry-After', reset: 'RateLimit-Reset' } });
    expect(denied.retryAfterMs).toBeGreaterThan(58_000);
    expect(denied.retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('draft-7: RateLimit "limit=2, remaining=1, reset=60"', async () => {
    const { first, denial } = await firstAndDenial('/draft-7');
    expect(first.headers['ratelimit']).toMatch(/^limit=2, remaining=1, reset=(59|60)$/);
    const read = readAnnouncement(first.headers, first.epochMs);
    expect(read).toMatchObject({ limit: 2, remaining: 1, fields: { limit: 'RateLimit limit' }, malformed: [] });
    expect(read.policies).toEqual([{ quota: 2, windowMs: 60_000 }]);
    expect(readAnnouncement(denial.headers, denial.epochMs)).toMatchObject({ remaining: 0, malformed: [] });
  });

  it('draft-8: RateLimit "\\"2-in-1min\\"; r=1; t=60" and RateLimit-Policy with a partition key', async () => {
    const { first, denial } = await firstAndDenial('/draft-8');
    expect(first.headers['ratelimit']).toMatch(/^"2-in-1min"; r=1; t=(59|60)$/);
    expect(first.headers['ratelimit-policy']).toMatch(/^"2-in-1min"; q=2; w=60; pk=:[A-Za-z0-9+/=]+:$/);
    const read = readAnnouncement(first.headers, first.epochMs);
    expect(read).toMatchObject({
      limit: 2,
      remaining: 1,
      policies: [{ quota: 2, windowMs: 60_000, name: '2-in-1min' }],
      fields: { limit: 'X-RateLimit-Limit', remaining: 'RateLimit r', reset: 'RateLimit t' },
      malformed: [],
    });
    const denied = readAnnouncement(denial.headers, denial.epochMs);
    expect(denied).toMatchObject({ remaining: 0, malformed: [] });
    expect(denied.readings.find((r) => r.field === 'RateLimit t')?.value).toBe(denied.retryAfterMs);
  });
});

describe('conventionGroup', () => {
  it.each([
    ['retry-after', 'retry-after'],
    ['x-ratelimit-limit', 'x-ratelimit'],
    ['x-rate-limit-reset', 'x-ratelimit'],
    ['ratelimit', 'ietf'],
    ['ratelimit-policy', 'ietf'],
    ['ratelimit-remaining', 'ietf'],
    ['content-type', undefined],
    ['x-ratelimiter', undefined],
  ])('%s -> %s', (name, group) => {
    expect(conventionGroup(name)).toBe(group);
  });
});
