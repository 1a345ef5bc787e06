import { describe, expect, it } from 'vitest';
import { headerRecord, readServerLimit, type ServerLimit } from '../../src/core/server-limit.js';

/** When the response was read: 2025-12-02T00:41:09.000Z. */
const NOW = 1_764_636_069_000;
const NOW_SECONDS = NOW / 1000;
const HTTP_DATE = new Date(NOW).toUTCString();

type Case = { family: string; why: string; headers: Record<string, string>; expected: Partial<ServerLimit> };

/** What each header family means to a client: the figures it acts on, times as ms from the response. */
const FAMILIES: Case[] = [
  {
    family: 'Retry-After seconds',
    why: 'delay-seconds (RFC 9110 10.2.3)',
    headers: { 'Retry-After': '2' },
    expected: { retryAfterMs: 2000, problems: [] },
  },
  {
    family: 'Retry-After HTTP-date',
    why: "a date, read against the response's own Date field (no clock skew)",
    headers: { 'Retry-After': new Date(NOW + 5000).toUTCString(), Date: HTTP_DATE },
    expected: { retryAfterMs: 5000, problems: [] },
  },
  {
    family: 'Retry-After HTTP-date, no Date field',
    why: "then against the client's epoch clock",
    headers: { 'Retry-After': new Date(NOW + 3000).toUTCString() },
    expected: { retryAfterMs: 3000, problems: [] },
  },
  {
    family: 'GitHub',
    why: 'X-RateLimit-* with an epoch-seconds reset (and -Used, -Resource, ignored)',
    headers: {
      'x-ratelimit-limit': '5000',
      'x-ratelimit-remaining': '4999',
      'x-ratelimit-reset': String(NOW_SECONDS + 3600),
      'x-ratelimit-used': '1',
      'x-ratelimit-resource': 'core',
    },
    expected: { limit: 5000, remaining: 4999, resetMs: 3_600_000, problems: [] },
  },
  {
    family: 'Stripe-like',
    why: 'a 429 with Retry-After and X-RateLimit-* whose reset is epoch ms',
    headers: {
      'Retry-After': '1',
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(NOW + 1000),
    },
    expected: { retryAfterMs: 1000, limit: 100, remaining: 0, resetMs: 1000, problems: [] },
  },
  {
    family: 'express-rate-limit legacy',
    why: 'X-RateLimit-Reset as epoch seconds',
    headers: { 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '4', 'X-RateLimit-Reset': String(NOW_SECONDS + 60) },
    expected: { limit: 5, remaining: 4, resetMs: 60_000, problems: [] },
  },
  {
    family: 'draft-6',
    why: 'RateLimit-Limit/-Remaining/-Reset (delta-seconds) and RateLimit-Policy "5;w=60"',
    headers: {
      'RateLimit-Limit': '5',
      'RateLimit-Remaining': '3',
      'RateLimit-Reset': '42',
      'RateLimit-Policy': '5;w=60',
    },
    expected: {
      limit: 5,
      remaining: 3,
      resetMs: 42_000,
      policy: { limit: 5, windowMs: 60_000, field: 'RateLimit-Policy' },
    },
  },
  {
    family: 'draft-7',
    why: 'one RateLimit dictionary',
    headers: { RateLimit: 'limit=10, remaining=9, reset=1', 'RateLimit-Policy': '10;w=1' },
    expected: {
      limit: 10,
      remaining: 9,
      resetMs: 1000,
      policy: { limit: 10, windowMs: 1000, field: 'RateLimit-Policy' },
    },
  },
  {
    family: 'draft-8+ (ratelab serve)',
    why: 'named items; ratelab-burst is the bucket',
    headers: { RateLimit: '"default";r=19;t=1', 'RateLimit-Policy': '"default";q=20;w=1;ratelab-burst=40' },
    expected: {
      remaining: 19,
      resetMs: 1000,
      limit: 20,
      policy: { limit: 20, windowMs: 1000, burst: 40, field: 'RateLimit-Policy' },
      problems: [],
    },
  },
  {
    family: 'draft-8+, two policies',
    why: 'the strictest policy paces; the binding item (least remaining) gives the budget',
    headers: {
      RateLimit: '"burst";r=5;t=1, "hour";r=2;t=3000',
      'RateLimit-Policy': '"burst";q=10;w=1, "hour";q=100;w=3600',
    },
    expected: {
      remaining: 2,
      resetMs: 3_000_000,
      policy: { limit: 100, windowMs: 3_600_000, field: 'RateLimit-Policy' },
    },
  },
  {
    family: 'none',
    why: 'nothing announced: the client falls back to AIMD',
    headers: { 'content-type': 'text/plain' },
    expected: { announced: false, problems: [] },
  },
];

describe('readServerLimit: what each header family tells a client', () => {
  it.each(FAMILIES)('$family: $why', ({ headers, expected }) => {
    const read = readServerLimit(headers, NOW);
    expect(read).toMatchObject(expected);
    expect(read.announced).toBe(expected.announced ?? true);
  });
});

describe('readServerLimit: malformed and contradictory fields are a one-line reason, never a throw', () => {
  it.each([
    {
      why: 'a fraction in Retry-After: read, and said',
      headers: { 'Retry-After': '1.5' },
      retryAfterMs: 1500,
      problem: /^Retry-After: a fraction/,
    },
    {
      why: 'junk in Retry-After: no wait',
      headers: { 'Retry-After': 'soon' },
      retryAfterMs: undefined,
      problem: /^Retry-After: neither delay-seconds nor an HTTP-date/,
    },
    {
      why: 'remaining above the limit',
      headers: { 'X-RateLimit-Limit': '5', 'X-RateLimit-Remaining': '7' },
      retryAfterMs: undefined,
      problem: /^X-RateLimit-Remaining 7 is more than X-RateLimit-Limit 5$/,
    },
    {
      why: 'two conventions disagree: the newer wins',
      headers: { 'X-RateLimit-Limit': '100', 'RateLimit-Limit': '10' },
      retryAfterMs: undefined,
      problem: /^X-RateLimit-Limit 100 and RateLimit-Limit 10 disagree; RateLimit-Limit wins$/,
    },
    {
      why: 'Retry-After later than the reset: Retry-After wins',
      headers: { 'Retry-After': '30', RateLimit: '"p";r=0;t=1' },
      retryAfterMs: 30_000,
      problem: /Retry-After 30000 ms is later than RateLimit t 1000 ms; Retry-After wins/,
    },
    {
      why: 'a RateLimit that is no structured field',
      headers: { RateLimit: '"unterminated' },
      retryAfterMs: undefined,
      problem: /^RateLimit: neither draft-07/,
    },
    {
      why: 'a reset already past',
      headers: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(NOW_SECONDS - 10) },
      retryAfterMs: undefined,
      problem: /^X-RateLimit-Reset: a reset already past/,
    },
  ])('$why', ({ headers, retryAfterMs, problem }) => {
    const read = readServerLimit(headers, NOW);
    expect(read.retryAfterMs).toBe(retryAfterMs);
    expect(
      read.problems.some((line) => problem.test(line)),
      read.problems.join(' | '),
    ).toBe(true);
    for (const line of read.problems) expect(line).not.toContain('\n');
  });

  it.each([undefined, null, 42, 'text', [], { 'retry-after': undefined }])(
    'headers %j: nothing, no throw',
    (headers) => {
      expect(readServerLimit(headers as never, NOW)).toMatchObject({ announced: false, problems: [] });
    },
  );
});

describe('headerRecord', () => {
  it('reads a Fetch Headers and a record alike, lower-casing names and joining arrays', () => {
    const fetchHeaders = new Headers({ 'Retry-After': '1', 'X-RateLimit-Limit': '5' });
    expect(headerRecord(fetchHeaders)).toEqual({ 'retry-after': '1', 'x-ratelimit-limit': '5' });
    expect(headerRecord({ 'Set-Cookie': ['a', 'b'], 'Retry-After': '1' })).toEqual({
      'set-cookie': 'a, b',
      'retry-after': '1',
    });
  });
});
