import { describe, expect, it } from 'vitest';
import type { Family, HeaderVerdict } from '../../src/audit/audit-report.js';
import { readAnnouncement } from '../../src/core/header-fields.js';
import {
  judgeHeaders,
  retryCheckPlan,
  type HeaderEvidence,
  type MeasuredPolicy,
  type RetryCheck,
  type RetryCheckPlan,
  type SequenceResponse,
} from '../../src/audit/header-truth.js';
import { rateLimitHeaders } from '../../src/http/headers.js';
import { ALGORITHMS, ManualClock, createLimiter, type Algorithm, type Policy } from '../../src/index.js';

/** A response's rate-limit fields by lower-case name. */
type Fields = Record<string, string>;

/** The audit started at this epoch time (2025-12-02T00:41:09Z). */
const START = 1_764_636_069_000;
/** The sequence's requests go this far apart. */
const GAP_MS = 10;

/**
 * A sequential run: `admitted` admissions then one denial, `GAP_MS` apart; `fields(i)` gives
 * response i's headers (the denial is response `admitted`).
 */
function sprint(admitted: number, fields: (i: number) => Record<string, string>): SequenceResponse[] {
  const responses: SequenceResponse[] = [];
  for (let i = 0; i <= admitted; i++) {
    const sentMs = i * GAP_MS;
    responses.push({ sentMs, epochMs: START + sentMs, admitted: i < admitted, headers: fields(i) });
  }
  return responses;
}

const fixedWindow = (limit: number, windowMs: number, recoveryMs?: number): MeasuredPolicy => ({
  family: 'fixed-window',
  limit,
  windowMs,
  ...(recoveryMs === undefined ? {} : { recoveryMs }),
});

const bucket = (ratePerSec: number, burst: number, recoveryMs?: number): MeasuredPolicy => ({
  family: 'token-bucket',
  limit: ratePerSec,
  windowMs: 1000,
  burst,
  ratePerSec,
  ...(recoveryMs === undefined ? {} : { recoveryMs }),
});

/** The verdict of `name` (undefined when it got no row). */
function verdictOf(verdicts: HeaderVerdict[], name: string): HeaderVerdict | undefined {
  return verdicts.find((v) => v.name === name);
}

describe('judgeHeaders: Remaining is followed by as many admissions before the denial', () => {
  const remaining =
    (values: number[]) =>
    (i: number): Fields =>
      values[i] === undefined ? {} : { 'x-ratelimit-remaining': String(values[i]) };

  it.each([
    {
      values: [4, 3, 2, 1, 0, 0],
      measured: fixedWindow(5, 10_000),
      verdict: 'truthful',
      detail: /each of 5 responses/,
      why: 'counts down to the denial',
    },
    {
      values: [5, 4, 3, 2, 1, 0],
      measured: fixedWindow(5, 10_000),
      verdict: 'wrong',
      detail: /^off by -1: response 1 announced 5 remaining, then 4/,
      why: 'counts the request itself: one more than there is',
    },
    {
      values: [5, 5, 5, 5, 5, 0],
      measured: fixedWindow(5, 10_000),
      verdict: 'wrong',
      detail: /off by -1.*\(5 of 5 responses disagree\)/,
      why: 'never counts down',
    },
    {
      values: [0, 0, 0, 0, 0, 0],
      measured: fixedWindow(5, 10_000),
      verdict: 'wrong',
      detail: /^off by \+4: response 1 announced 0/,
      why: 'says nothing is left while 4 more are admitted',
    },
    {
      values: [3, 2, 1, 0, 0, 0],
      measured: fixedWindow(5, 10_000),
      verdict: 'truthful',
      detail: /each of 5/,
      why: 'one fewer than admitted: within the allowance of one',
    },
    {
      values: [4, 3, 2, 1, 0, 3],
      measured: fixedWindow(5, 10_000),
      verdict: 'wrong',
      detail: /^a denial announced 3 remaining$/,
      why: 'a denial with quota left',
    },
    {
      values: [1, 0, 4, 3, 2, 1, 0, 0],
      measured: fixedWindow(5, 10_000),
      verdict: 'truthful',
      detail: /each of 5/,
      why: 'a new window began mid-run (the value rose): judged from there',
    },
    {
      values: [4, 3, 3, 2, 2, 1, 1, 0, 0],
      measured: bucket(100, 5),
      verdict: 'truthful',
      detail: /each of 8/,
      why: 'a bucket refills during the run: 100/s over 80 ms allows 8 more',
    },
    {
      values: [4, 3, 3, 2, 2, 1, 1, 0, 0],
      measured: fixedWindow(5, 60_000),
      verdict: 'wrong',
      detail: /off by \+3/,
      why: 'the same run from a 5-per-minute window: no refill explains the extra admissions',
    },
  ] as const)('$values: $verdict ($why)', ({ values, measured, verdict, detail }) => {
    const evidence = { sequence: sprint(values.length - 1, remaining([...values])), retryChecks: [], measured };
    const row = verdictOf(judgeHeaders(evidence), 'X-RateLimit-Remaining');
    expect(row?.verdict).toBe(verdict);
    expect(row?.detail).toMatch(detail);
  });

  it('no denial to count to: Remaining gets no row', () => {
    const sequence = sprint(3, remaining([2, 1, 0, 0])).map((r) => ({ ...r, admitted: true }));
    const verdicts = judgeHeaders({ sequence, retryChecks: [], measured: fixedWindow(5, 1000) });
    expect(verdictOf(verdicts, 'X-RateLimit-Remaining')).toBeUndefined();
  });
});

describe('judgeHeaders: the Limit announced to a fresh identity against what it was admitted', () => {
  const limitField = (value: string) => () => ({ 'x-ratelimit-limit': value });

  it.each([
    {
      said: '10',
      admitted: 10,
      measured: fixedWindow(10, 1000),
      verdict: 'truthful',
      detail: /^10: 10 were admitted from a fresh identity$/,
      why: 'as admitted',
    },
    {
      said: '40',
      admitted: 41,
      measured: bucket(20, 40),
      verdict: 'truthful',
      detail: /^40: 41 were admitted.*\(the burst; the sustained rate is 20\/s\)/,
      why: "a bucket's burst (41: one refilled during the run)",
    },
    {
      said: '20',
      admitted: 41,
      measured: bucket(20, 40),
      verdict: 'truthful',
      detail: /^20: the measured limit 20\/s; the burst is 40$/,
      why: 'the rate, not the burst: truthful, and the detail says so',
    },
    {
      said: '100',
      admitted: 50,
      measured: fixedWindow(50, 60_000),
      verdict: 'wrong',
      detail: /^off by \+50: announced 100; 50 were admitted from a fresh identity; measured 50 per 60 s$/,
      why: 'twice what is admitted',
    },
    {
      said: '5',
      admitted: 400,
      measured: fixedWindow(400, 60_000),
      verdict: 'wrong',
      detail: /off by -395/,
      why: 'a limit that does not hold (the @nestjs/throttler flood)',
    },
    {
      said: '104',
      admitted: 100,
      measured: fixedWindow(100, 1000),
      verdict: 'truthful',
      detail: /^104: 100 were admitted/,
      why: 'within 5%',
    },
  ] as const)('Limit $said, $admitted admitted: $verdict ($why)', ({ said, admitted, measured, verdict, detail }) => {
    const row = verdictOf(
      judgeHeaders({ sequence: sprint(admitted, limitField(said)), retryChecks: [], measured }),
      'X-RateLimit-Limit',
    );
    expect(row?.verdict).toBe(verdict);
    expect(row?.detail).toMatch(detail);
  });
});

describe('judgeHeaders: a wait is truthful when a request at it is admitted and none clearly earlier is', () => {
  const check = (announcedMs: number, sentAfterMs: number, admitted: boolean): RetryCheck => ({
    fields: ['Retry-After'],
    announcedMs,
    sentAfterMs,
    admitted,
  });
  const denialSays =
    (value: string) =>
    (i: number): Fields =>
      i === 5 ? { 'retry-after': value } : {};

  it.each([
    {
      retryAfter: '3',
      checks: [check(3000, 3025, true), check(3000, 1700, false)],
      measured: fixedWindow(5, 10_000),
      verdict: 'truthful',
      detail: 'a request at the announced 3 s was admitted; one sent 1.3 s before it was denied',
      why: 'both checks agree',
    },
    {
      retryAfter: '1',
      checks: [check(1000, 1025, false)],
      measured: fixedWindow(5, 10_000),
      verdict: 'wrong',
      detail: 'too short: a request at the announced 1 s was denied',
      why: '1.6 s truncated down to 1: a client obeying it is denied',
    },
    {
      retryAfter: '5',
      checks: [check(5000, 5025, true), check(5000, 2000, true)],
      measured: fixedWindow(5, 10_000),
      verdict: 'wrong',
      detail: 'too long: admitted 3 s earlier',
      why: 'more than the rounding early was admitted',
    },
    {
      retryAfter: '2',
      checks: [check(2000, 2025, true), check(2000, 1100, true)],
      measured: fixedWindow(5, 10_000),
      verdict: 'truthful',
      detail: 'a request at the announced 2 s was admitted',
      why: 'admitted 0.9 s early is within the rounding up of whole seconds: no evidence against it',
    },
    {
      retryAfter: '1',
      checks: [],
      measured: fixedWindow(5, 10_000, 730),
      verdict: 'truthful',
      detail: 'announced 1 s; the next admission came 0.73 s after the denial',
      why: 'no checks: 0.73 s rounded up is 1',
    },
    {
      retryAfter: '734',
      checks: [],
      measured: fixedWindow(5, 10_000, 730),
      verdict: 'wrong',
      detail:
        'too long: announced 734 s, the next admission came back 0.73 s after the denial (in ms, not s: Retry-After 734 where the wait was 0.73 s)',
      why: 'the @fastify/rate-limit #301 mistake: ms where seconds are due',
    },
    {
      retryAfter: '60',
      checks: [],
      measured: fixedWindow(5, 60_000, 12_300),
      verdict: 'wrong',
      detail: /^too long: announced 60 s, .* \(the whole window, 60 s, not the time left, 12.3 s\)$/,
      why: 'the @fastify/rate-limit PR #324 mistake: the window, not the time left',
    },
    {
      retryAfter: '1',
      checks: [],
      measured: fixedWindow(5, 10_000, 2500),
      verdict: 'wrong',
      detail: 'too short: announced 1 s, but the next admission came 2.5 s after the denial',
      why: 'no checks, judged from the recovery: shorter than it',
    },
    {
      retryAfter: '2',
      checks: [],
      measured: { ...fixedWindow(5, 10_000, 2200), recoveryResolutionMs: 300 },
      verdict: 'truthful',
      detail: 'announced 2 s; the next admission came 2.2 s after the denial',
      why: 'the recovery was polled every 300 ms: the true one may be 1.9 s',
    },
    {
      retryAfter: '0.25',
      checks: [],
      measured: bucket(4, 1, 250),
      verdict: 'wrong',
      detail:
        'malformed: a fraction: delay-seconds is a whole number (RFC 9110 10.2.3); read as 250 ms (sent "0.25"); announced 0.25 s; the next admission came 0.25 s after the denial',
      why: "rate-limiter-flexible's README style: the wait holds, the format does not",
    },
    {
      retryAfter: 'Tue, 02 Dec 2025 00:41:11 GMT',
      checks: [check(1950, 1975, true)],
      measured: fixedWindow(5, 10_000),
      verdict: 'truthful',
      detail: 'a request at the announced 1.95 s was admitted',
      why: 'an HTTP-date, relative to when the denied request was sent',
    },
  ] as const)('Retry-After $retryAfter: $verdict ($why)', ({ retryAfter, checks, measured, verdict, detail }) => {
    const evidence: HeaderEvidence = {
      sequence: sprint(5, denialSays(retryAfter)),
      retryChecks: [...checks],
      measured,
    };
    const row = verdictOf(judgeHeaders(evidence), 'Retry-After');
    expect(row?.verdict).toBe(verdict);
    if (typeof detail === 'string') expect(row?.detail).toBe(detail);
    else expect(row?.detail).toMatch(detail);
  });

  it('neither checks nor a measured recovery: the wait gets no row', () => {
    const evidence = { sequence: sprint(5, denialSays('3')), retryChecks: [], measured: fixedWindow(5, 10_000) };
    expect(verdictOf(judgeHeaders(evidence), 'Retry-After')).toBeUndefined();
  });
});

describe('judgeHeaders: a reset announces when the whole quota is back', () => {
  const denialSays =
    (reset: string) =>
    (i: number): Fields =>
      i === 5 ? { 'x-ratelimit-reset': reset } : {};
  const early = (announcedMs: number, sentAfterMs: number): RetryCheck => ({
    fields: ['X-RateLimit-Reset'],
    announcedMs,
    sentAfterMs,
    admitted: true,
  });

  it.each([
    {
      reset: '2',
      checks: [early(2000, 750)],
      measured: bucket(20, 40, 50),
      verdict: 'truthful',
      why: "a bucket returns quota long before it is full: an early admission does not contradict ratelab's full-quota reset",
    },
    {
      reset: '5',
      checks: [early(5000, 2000)],
      measured: fixedWindow(5, 10_000),
      verdict: 'wrong',
      why: 'a fixed window returns all at once: admitted 3 s before the reset, it was too long',
    },
    {
      reset: '9',
      checks: [],
      measured: bucket(20, 40, 50),
      verdict: 'wrong',
      why: 'from empty, 40 at 20/s is full after 2 s: 9 s is too long',
    },
    {
      reset: String(START / 1000 + 2),
      checks: [],
      measured: { ...bucket(20, 40, 50), fullRecoveryMs: 1900 },
      verdict: 'truthful',
      why: 'epoch seconds, against the measured full recovery',
    },
  ] as const)('X-RateLimit-Reset $reset: $verdict ($why)', ({ reset, checks, measured, verdict }) => {
    const evidence: HeaderEvidence = { sequence: sprint(5, denialSays(reset)), retryChecks: [...checks], measured };
    expect(verdictOf(judgeHeaders(evidence), 'X-RateLimit-Reset')?.verdict).toBe(verdict);
  });
});

describe('judgeHeaders: the announced policy against the measured one', () => {
  const policy = (value: string) => () => ({ 'ratelimit-policy': value });

  it.each([
    {
      value: '100;w=60',
      measured: fixedWindow(100, 60_000),
      verdict: 'truthful',
      detail: '100 per 60 s matches the measured 100 per 60 s',
      why: "express-rate-limit's draft-6/7 policy",
    },
    {
      value: '100;w=60',
      measured: fixedWindow(100, 30_000),
      verdict: 'wrong',
      detail: 'announced 100 per 60 s: window 60 s (measured 30 s)',
      why: 'the window differs by more than 10%',
    },
    {
      value: '"100-in-1min"; q=100; w=60; pk=:ZmQ0YTVhYjQ1Yjhh:',
      measured: fixedWindow(96, 57_000),
      verdict: 'truthful',
      detail: '"100-in-1min" 100 per 60 s matches the measured 96 per 57 s',
      why: "express-rate-limit's draft-8 policy; within 5% (quota) and 10% (window)",
    },
    {
      value: '"p";q=100;w=60',
      measured: fixedWindow(50, 60_000),
      verdict: 'wrong',
      detail: 'announced "p" 100 per 60 s: quota 100 (measured 50)',
      why: 'the quota differs',
    },
    {
      value: '10;w=1, 1000;w=3600',
      measured: fixedWindow(10, 1000),
      verdict: 'truthful',
      detail: '10 per 1 s matches the measured 10 per 1 s; 1000 per 3600 s not reached by the audit',
      why: 'several policies: the one the audit could reach matches',
    },
    {
      value: '"free";q=20;w=1;ratelab-burst=40',
      measured: bucket(20, 40),
      verdict: 'truthful',
      detail: '"free" 20 per 1 s burst 40 matches the measured 20/s',
      why: "ratelab's own: a token bucket's rate and burst",
    },
    {
      value: '"free";q=20;w=1;ratelab-burst=40',
      measured: bucket(10, 40),
      verdict: 'wrong',
      detail: 'announced "free" 20 per 1 s burst 40: rate 20/s (measured 10/s)',
      why: "a bucket's rate is the quota over the window",
    },
  ] as const)('RateLimit-Policy $value: $verdict ($why)', ({ value, measured, verdict, detail }) => {
    const row = verdictOf(
      judgeHeaders({ sequence: sprint(5, policy(value)), retryChecks: [], measured }),
      'RateLimit-Policy',
    );
    expect(row).toEqual({ name: 'RateLimit-Policy', verdict, detail });
  });

  it('nothing measured to hold it against: no row', () => {
    const measured: MeasuredPolicy = { family: 'unknown', limit: null, windowMs: null };
    const verdicts = judgeHeaders({ sequence: sprint(5, policy('100;w=60')), retryChecks: [], measured });
    expect(verdictOf(verdicts, 'RateLimit-Policy')).toBeUndefined();
  });
});

describe('judgeHeaders: missing fields, one row per convention', () => {
  it.each([
    {
      name: 'nginx limit_req (no rate-limit fields at all)',
      fields: () => ({}),
      missing: ['Retry-After', 'X-RateLimit-*', 'RateLimit (IETF)'],
    },
    {
      name: 'express-rate-limit, legacy fields only, no Retry-After',
      fields: () => ({ 'x-ratelimit-limit': '5' }),
      missing: ['Retry-After', 'RateLimit (IETF)'],
    },
    {
      name: 'draft-8 only, with Retry-After on the denial',
      fields: (i: number) => ({ ratelimit: `"p";r=${Math.max(0, 4 - i)}`, ...(i === 5 ? { 'retry-after': '1' } : {}) }),
      missing: ['X-RateLimit-*'],
    },
  ])('$name -> missing $missing', ({ fields, missing }) => {
    const verdicts = judgeHeaders({ sequence: sprint(5, fields), retryChecks: [], measured: fixedWindow(5, 1000) });
    const rows = verdicts.filter((v) => v.verdict === 'missing');
    expect(rows.map((v) => v.name)).toEqual(missing);
    expect(rows.every((v) => v.detail.length > 0)).toBe(true);
  });

  it('nothing denied: Retry-After is not missing (no denial to carry it)', () => {
    const sequence = sprint(3, () => ({})).map((r) => ({ ...r, admitted: true }));
    const names = judgeHeaders({ sequence, retryChecks: [], measured: fixedWindow(5, 1000) }).map((v) => v.name);
    expect(names).toEqual(['X-RateLimit-*', 'RateLimit (IETF)']);
  });

  it('junk in a field is a wrong row naming it', () => {
    const fields = (i: number): Fields =>
      i === 5 ? { 'retry-after': 'soon', 'x-ratelimit-limit': '5' } : { 'x-ratelimit-limit': '5' };
    const verdicts = judgeHeaders({ sequence: sprint(5, fields), retryChecks: [], measured: fixedWindow(5, 1000) });
    expect(verdictOf(verdicts, 'Retry-After')).toEqual({
      name: 'Retry-After',
      verdict: 'wrong',
      detail: 'malformed: neither delay-seconds nor an HTTP-date (sent "soon")',
    });
  });
});

describe('retryCheckPlan: when the probes send the checks of a denial', () => {
  it.each([
    {
      headers: { 'retry-after': '1' },
      plan: { fields: ['Retry-After'], announcedMs: 1000, atSentMs: 6025 },
      why: 'under 2 s: no early check (nothing is clearly earlier than the rounding)',
    },
    {
      headers: { 'retry-after': '2' },
      plan: { fields: ['Retry-After'], announcedMs: 2000, atSentMs: 7025, earlySentMs: 5750 },
      why: 'early: 1 s of rounding and at least 250 ms before',
    },
    {
      headers: { 'retry-after': '10' },
      plan: { fields: ['Retry-After'], announcedMs: 10_000, atSentMs: 15_025, earlySentMs: 13_000 },
      why: 'early: 1 s and 10% of the wait before',
    },
    {
      headers: { ratelimit: '"p";r=0;t=3' },
      plan: { fields: ['RateLimit t'], announcedMs: 3000, atSentMs: 8025, earlySentMs: 6700 },
      why: 'no Retry-After: the reset (early: 1 s and 10% of the wait before)',
    },
    {
      headers: { 'retry-after': '2', ratelimit: '"p";r=0;t=2', 'x-ratelimit-reset': '3' },
      plan: { fields: ['Retry-After', 'RateLimit t'], announcedMs: 2000, atSentMs: 7025, earlySentMs: 5750 },
      why: "ratelab's denial: t equals Retry-After and is checked with it; the full-quota reset is not",
    },
    {
      headers: { 'retry-after': 'Tue, 02 Dec 2025 00:41:08 GMT' },
      plan: { fields: ['Retry-After'], announcedMs: 0, atSentMs: 5025 },
      why: 'a date already past: at once',
    },
  ] as { headers: Fields; plan: RetryCheckPlan; why: string }[])('$headers: $why', ({ headers, plan }) => {
    expect(retryCheckPlan(readAnnouncement(headers, START + 5000), 5000)).toEqual(plan);
  });

  it('a denial announcing no wait has no plan', () => {
    expect(retryCheckPlan(readAnnouncement({ 'x-ratelimit-remaining': '0' }, START), 0)).toBeUndefined();
  });
});

describe("judgeHeaders: ratelab's own limiters tell the truth (rateLimitHeaders, checks run as planned)", () => {
  const POLICIES = [
    { limit: 10, windowMs: 2000, burst: 15 },
    { limit: 10, windowMs: 5000, burst: 15 },
  ];
  const FAMILY: Record<Algorithm, Family> = {
    'token-bucket': 'token-bucket',
    gcra: 'token-bucket',
    'sliding-log': 'sliding-log',
    'sliding-counter': 'sliding-counter',
    'fixed-window': 'fixed-window',
  };

  /** A limiter and its clock, started at the audit's start plus `offsetMs`: each world replays the same requests. */
  function world(algorithm: Algorithm, policy: Policy, offsetMs: number) {
    const clock = new ManualClock(START + offsetMs);
    const limiter = createLimiter(algorithm, policy, { clock });
    const send = (): SequenceResponse => {
      const decision = limiter.consume('k');
      const fields = rateLimitHeaders(decision, { name: 'p', limits: limiter.limits }, { ietf: true });
      const headers = Object.fromEntries(fields.map(([name, value]) => [name.toLowerCase(), value]));
      return { sentMs: clock.now() - START, epochMs: clock.now(), admitted: decision.allowed, headers };
    };
    const sequence: SequenceResponse[] = [];
    for (;;) {
      const response = send();
      sequence.push(response);
      if (!response.admitted) break;
      clock.advance(GAP_MS);
    }
    const at = (sentMs: number) => {
      clock.set(START + sentMs);
      return send();
    };
    return { sequence, at };
  }

  it.each(ALGORITHMS.flatMap((algorithm) => POLICIES.map((policy) => ({ algorithm, policy }))))(
    '$algorithm $policy.limit per $policy.windowMs ms: every field truthful',
    ({ algorithm, policy }) => {
      const offsetMs = 300;
      const main = world(algorithm, policy, offsetMs);
      const denial = main.sequence.at(-1)!;
      const plan = retryCheckPlan(readAnnouncement(denial.headers, denial.epochMs), denial.sentMs)!;
      const retryChecks: RetryCheck[] = [];
      const record = (shot: SequenceResponse, deniedSentMs: number) =>
        retryChecks.push({
          fields: plan.fields,
          announcedMs: plan.announcedMs,
          sentAfterMs: shot.sentMs - deniedSentMs,
          admitted: shot.admitted,
        });
      if (plan.earlySentMs !== undefined)
        record(world(algorithm, policy, offsetMs).at(plan.earlySentMs), denial.sentMs);
      record(main.at(plan.atSentMs), denial.sentMs);
      const recovery = world(algorithm, policy, offsetMs);
      let recoveryMs = 0;
      while (!recovery.at(denial.sentMs + recoveryMs).admitted) recoveryMs += GAP_MS;
      const bucketLike = FAMILY[algorithm] === 'token-bucket';
      const measured: MeasuredPolicy = {
        family: FAMILY[algorithm],
        limit: policy.limit,
        windowMs: policy.windowMs,
        ...(bucketLike ? { burst: policy.burst, ratePerSec: policy.limit / (policy.windowMs / 1000) } : {}),
        recoveryMs,
        recoveryResolutionMs: GAP_MS,
      };
      const verdicts = judgeHeaders({ sequence: main.sequence, retryChecks, measured });
      const wrong = verdicts.filter((v) => v.verdict === 'wrong');
      expect(wrong).toEqual([]);
      expect(verdicts.map((v) => v.name)).toEqual([
        'Retry-After',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
        'RateLimit r',
        'RateLimit t',
        'RateLimit-Policy',
      ]);
    },
  );
});
