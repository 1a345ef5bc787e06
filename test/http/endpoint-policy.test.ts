import { describe, expect, it } from 'vitest';
import { missingPolicy, readPolicy, type GivenPolicy } from '../../src/attack/endpoint-policy.js';
import type { RateLimitFields } from '../../src/attack/shot.js';
import { describePolicy } from '../../src/report/attack-report.js';

const IETF: RateLimitFields = { rateLimitPolicy: '"default";q=5;w=1', limit: '5' };
const LEGACY: RateLimitFields = { limit: '10' };
const SUB_SECOND: RateLimitFields = { rateLimitPolicy: '"fast";q=3', limit: '3' };

describe('the policy to judge an endpoint by', () => {
  it.each<{ fields: RateLimitFields; given: GivenPolicy; policy: string | undefined; why: string }>([
    {
      fields: IETF,
      given: { limit: 7, windowMs: 2000 },
      policy: '7 per 2s, from --limit/--window',
      why: 'the flags win over the fields',
    },
    { fields: IETF, given: {}, policy: '5 per 1s, read from RateLimit-Policy', why: 'RateLimit-Policy q and w' },
    {
      fields: { rateLimitPolicy: '"a";q=100;w=60, "b";q=1000;w=3600' },
      given: {},
      policy: '100 per 1m and 1000 per 1h, read from RateLimit-Policy',
      why: 'every policy listed, the first first (judged all at once)',
    },
    {
      fields: { rateLimitPolicy: '"per, minute";q=10;w=60, "hourly";q=100;w=3600' },
      given: {},
      policy: '10 per 1m and 100 per 1h, read from RateLimit-Policy',
      why: "a comma inside a policy's quoted name does not end the policy (a Structured Field list)",
    },
    {
      fields: { rateLimitPolicy: '"a";q=5;w=1;q=9' },
      given: {},
      policy: '9 per 1s, read from RateLimit-Policy',
      why: 'a parameter given twice counts as its last value (RFC 8941)',
    },
    {
      fields: IETF,
      given: { windowMs: 2000 },
      policy: '5 per 2s, limit read from RateLimit-Policy, window from --window',
      why: '--window alone takes the limit from RateLimit-Policy',
    },
    {
      fields: LEGACY,
      given: { windowMs: 60_000 },
      policy: '10 per 1m, limit read from X-RateLimit-Limit, window from --window',
      why: 'X-RateLimit-Limit with --window',
    },
    {
      fields: SUB_SECOND,
      given: { windowMs: 500 },
      policy: '3 per 500ms, limit read from RateLimit-Policy, window from --window',
      why: 'a RateLimit-Policy without w, with --window',
    },
    { fields: LEGACY, given: {}, policy: undefined, why: 'X-RateLimit-Limit carries no window' },
    { fields: SUB_SECOND, given: {}, policy: undefined, why: 'a RateLimit-Policy without w, no --window' },
    { fields: {}, given: {}, policy: undefined, why: 'no fields, no flags' },
    { fields: {}, given: { windowMs: 1000 }, policy: undefined, why: 'no fields to read the limit from' },
    { fields: { limit: '0' }, given: { windowMs: 1000 }, policy: undefined, why: 'a limit of 0 is not a policy' },
    {
      fields: { rateLimitPolicy: 'garbage', limit: 'many' },
      given: { windowMs: 1000 },
      policy: undefined,
      why: 'unreadable fields',
    },
  ])('$why', ({ fields, given, policy, why }) => {
    const judged = readPolicy(fields, given);
    expect(judged && describePolicy(judged, 1), why).toBe(policy);
  });

  it.each<{ fields: RateLimitFields | undefined; given: GivenPolicy; flag: string; advice: RegExp }>([
    {
      fields: {},
      given: {},
      flag: '--limit',
      advice: /^the endpoint sends neither RateLimit-Policy nor X-RateLimit-Limit: pass --limit N --window D$/,
    },
    {
      fields: {},
      given: { windowMs: 1000 },
      flag: '--limit',
      advice: /neither RateLimit-Policy nor X-RateLimit-Limit: pass --limit N --window D/,
    },
    {
      fields: LEGACY,
      given: {},
      flag: '--window',
      advice:
        /^the endpoint's X-RateLimit-Limit 10 carries no window: pass --window D \(and --limit N to override the limit\)$/,
    },
    {
      fields: SUB_SECOND,
      given: {},
      flag: '--window',
      advice: /RateLimit-Policy "\\"fast\\";q=3" has no window \(w\): pass --window D/,
    },
    {
      fields: undefined,
      given: {},
      flag: '--limit',
      advice: /^no 2xx or 429 response to read the policy from: pass --limit N --window D$/,
    },
  ])('says what to pass: $flag, $advice', ({ fields, given, flag, advice }) => {
    const missing = missingPolicy(fields, given);
    expect(missing.flag).toBe(flag);
    expect(missing.advice).toMatch(advice);
  });

  it("describes a scenario's policy as time-scaled", () => {
    expect(describePolicy({ limit: 5, windowMs: 1000, source: { limit: 'scenario', window: 'scenario' } }, 10)).toBe(
      "5 per 1s, the scenario's policy at 10x speed",
    );
  });
});
