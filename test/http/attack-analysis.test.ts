import { describe, expect, it } from 'vitest';
import { analyzeAttack, headerProblem } from '../../src/attack/analysis.js';
import type { AttackRun } from '../../src/attack/runner.js';
import type { Shot } from '../../src/attack/shot.js';
import { advertisedLimits, readPolicy, type JudgedPolicy } from '../../src/attack/endpoint-policy.js';
import { attackNotes } from '../../src/report/attack-report.js';
import { attackJson } from '../../src/report/data/attack-json.js';
import { scenarioWorkload } from '../../src/sim/workload.js';
import { resolveScenario } from '../../src/scenario/builtins.js';

const POLICY: JudgedPolicy = {
  limit: 2,
  windowMs: 1000,
  source: { limit: 'RateLimit-Policy', window: 'RateLimit-Policy' },
};

/** A shot as the runner records it: `status` 200/429/503, or undefined (no response). */
function shot(sentMs: number, status: number | undefined, probeOf?: number, retryAfter?: string): Shot {
  return {
    sentMs,
    key: 'k',
    probeOf,
    status,
    error: status === undefined ? 'ECONNRESET' : undefined,
    latencyMs: 1,
    headersMs: status === undefined ? undefined : 1,
    headers: retryAfter === undefined ? {} : { retryAfter },
  };
}

function runOf(shots: Shot[]): AttackRun {
  return { shots, startEpochMs: 0, stoppedBy: 'done', maxLagMs: 0, unsent: 0 };
}

describe('Retry-After probes are counted apart from the workload', () => {
  // Three requests of the workload (2 admitted, 1 limited with Retry-After 1), and the probes of that 429.
  const own = [shot(0, 200), shot(10, 200), shot(20, 429, undefined, '1')];
  it.each([
    { probes: [], counted: { sent: 0, honest: 0, dishonest: 0, contended: 0, undecided: 0 } },
    { probes: [shot(1020, 200, 2)], counted: { sent: 1, honest: 1, dishonest: 0, contended: 0, undecided: 0 } },
    { probes: [shot(1020, 429, 2, '1')], counted: { sent: 1, honest: 0, dishonest: 1, contended: 0, undecided: 0 } },
    { probes: [shot(1020, 503, 2)], counted: { sent: 1, honest: 0, dishonest: 0, contended: 0, undecided: 1 } },
  ])('$counted', ({ probes, counted }) => {
    const analysis = analyzeAttack(runOf([...own, ...probes]), { policy: POLICY, bucketMs: 1000 });
    expect(analysis.probes).toEqual(counted);
    // The row and the responses hold the workload's three requests only, whatever the probes got.
    expect([analysis.metrics.offered, analysis.metrics.admitted, analysis.metrics.denied]).toEqual([3, 2, 1]);
    expect([
      analysis.responses.sent,
      analysis.responses.admitted,
      analysis.responses.limited,
      analysis.responses.other,
    ]).toEqual([3, 2, 1, 0]);
    expect(analysis.metrics.worstWindowRatio).toBe(1);
  });

  it('calls a limited probe contended when the key was admitted in between', () => {
    const shots = [
      shot(0, 200),
      shot(10, 200),
      shot(20, 429, undefined, '1'),
      shot(1010, 200),
      shot(1020, 429, 2, '1'),
    ];
    const analysis = analyzeAttack(runOf(shots), { policy: POLICY, bucketMs: 1000 });
    expect(analysis.probes).toEqual({ sent: 1, honest: 0, dishonest: 0, contended: 1, undecided: 0 });
    expect(analysis.metrics.offered).toBe(4);
  });

  it('counts requests without a response apart from the decided ones', () => {
    const analysis = analyzeAttack(runOf([shot(0, 200), shot(5, undefined), shot(10, 503)]), {
      policy: POLICY,
      bucketMs: 1000,
    });
    expect(analysis.responses).toEqual({
      sent: 3,
      admitted: 1,
      limited: 0,
      other: 1,
      errors: 1,
      errorCodes: { ECONNRESET: 1 },
      aborted: 0,
    });
    expect(analysis.metrics.offered).toBe(1);
  });

  it("counts requests cut off by the run's stop as aborted, not as the endpoint's errors", () => {
    const aborted = { ...shot(5, undefined), error: 'aborted' };
    const timedOut = { ...shot(8, undefined), error: 'timeout', headersMs: 1 };
    const run = runOf([shot(0, 200), aborted, timedOut]);
    const analysis = analyzeAttack(run, { policy: POLICY, bucketMs: 1000 });
    expect(analysis.responses).toEqual({
      sent: 3,
      admitted: 1,
      limited: 0,
      other: 0,
      errors: 1,
      errorCodes: { timeout: 1 },
      aborted: 1,
    });
    const report = {
      url: new URL('http://127.0.0.1:8080/'),
      workload: scenarioWorkload(resolveScenario('edge-attack', process.cwd())),
      speed: 1,
      run,
      analysis,
    };
    expect(attackNotes(report)).toContain(
      'requests: 3 sent; 1 2xx, 0 429, 0 other, 1 without a response (timeout x1), 1 aborted by the stop',
    );
  });

  it('reports the probes on their own line and in their own JSON section', () => {
    const run = runOf([...own, shot(1020, 429, 2, '1')]);
    const analysis = analyzeAttack(run, { policy: POLICY, bucketMs: 1000 });
    const report = {
      url: new URL('http://127.0.0.1:8080/'),
      workload: scenarioWorkload(resolveScenario('edge-attack', process.cwd())),
      speed: 1,
      run,
      analysis,
    };
    const notes = attackNotes(report);
    expect(notes).toContain('policy: 2 per 1s, read from RateLimit-Policy; judged in wall-clock time');
    expect(notes).toContain('requests: 3 sent; 2 2xx, 1 429, 0 other, 0 without a response');
    expect(notes).toContain(
      'Retry-After probes: 1 sent (not in the figures above): 0 honest, 1 dishonest, 0 contended, 0 undecided',
    );
    const json = attackJson(report).attack as Record<string, unknown>;
    expect(json.probes).toEqual({ sent: 1, honest: 0, dishonest: 1, contended: 0, undecided: 0 });
    expect(json.responses).toMatchObject({ sent: 3 });
    expect(json.policySource).toEqual({ limit: 'RateLimit-Policy', window: 'RateLimit-Policy' });
  });
});

describe('header consistency of a response carrying several policies', () => {
  const BOTH_LEFT = '"burst";r=4;t=1, "hourly";r=2;t=3600';
  // status, X-RateLimit-Remaining, Retry-After, RateLimit, the problem found, why
  it.each<[number, string, string | undefined, string, string | undefined, string]>([
    [200, '2', undefined, BOTH_LEFT, undefined, 'X-RateLimit-Remaining is the least r, the binding limit'],
    [
      200,
      '4',
      undefined,
      BOTH_LEFT,
      'RateLimit r=2 but X-RateLimit-Remaining 4',
      'the first policy is not the binding one',
    ],
    [
      429,
      '0',
      '1',
      '"burst";r=0;t=1, "hourly";r=2;t=3600',
      undefined,
      'denied by the short limit: the long one still admits, its t (time to full) is no promise',
    ],
    [
      429,
      '0',
      '1',
      '"burst";r=0;t=1, "hourly";r=0;t=3598',
      'Retry-After 1 is earlier than RateLimit t=3598',
      'both ran out: Retry-After must wait for the longer',
    ],
  ])(
    '%s, remaining %s, Retry-After %s, RateLimit %s -> %s (%s)',
    (status, remaining, retryAfter, rateLimit, problem) => {
      const headers = { remaining, rateLimit, ...(retryAfter === undefined ? {} : { retryAfter }) };
      expect(headerProblem({ ...shot(0, status), headers })).toBe(problem);
    },
  );
});

describe('the policies an endpoint advertises', () => {
  it.each([
    {
      field: '"burst";q=20;w=1, "hourly";q=1000;w=3600',
      limits: [
        { name: 'burst', limit: 20, windowMs: 1000 },
        { name: 'hourly', limit: 1000, windowMs: 3_600_000 },
      ],
      why: 'each named policy with q and w',
    },
    { field: '"burst";q=20;w=1, "hourly";q=1000', limits: [], why: 'one without w: the limits are not all known' },
    { field: '"a";q=5;w=1, garbage(', limits: [], why: 'not a Structured Field list' },
  ])('$why', ({ field, limits }) => {
    expect(advertisedLimits({ rateLimitPolicy: field })).toEqual(limits);
  });

  it('judges by the first and lists them all, only when read from the field alone', () => {
    const fields = { rateLimitPolicy: '"burst";q=20;w=1, "hourly";q=1000;w=3600' };
    expect(readPolicy(fields, {})?.limits?.map((l) => l.name)).toEqual(['burst', 'hourly']);
    expect(readPolicy(fields, {})).toMatchObject({ limit: 20, windowMs: 1000 });
    expect(readPolicy(fields, { windowMs: 5000 })?.limits).toBeUndefined();
  });
});

describe('an endpoint holding a key to several limits is judged by all of them at once', () => {
  // 2 per 1 s and 3 per 10 s, as an exact endpoint enforces them.
  const policy: JudgedPolicy = {
    ...POLICY,
    limits: [
      { name: 'burst', limit: 2, windowMs: 1000 },
      { name: 'slow', limit: 3, windowMs: 10_000 },
    ],
  };
  it.each([
    {
      shots: [shot(0, 200), shot(10, 200), shot(20, 429), shot(1000, 200), shot(1010, 429)],
      accuracy: [0, 0],
      why: 'the 429 at 1010 ms is the 10 s limit (3 admitted): right, though 2/1s alone would admit it',
    },
    {
      shots: [shot(0, 200), shot(10, 200), shot(1000, 200), shot(1010, 200)],
      accuracy: [1, 0],
      why: 'a fourth admission inside 10 s is over the slow limit: a false admit',
    },
    {
      shots: [shot(0, 200), shot(10, 429), shot(1000, 200)],
      accuracy: [0, 1],
      why: 'a 429 both limits would admit: a false denial',
    },
  ])('$why', ({ shots, accuracy }) => {
    const analysis = analyzeAttack(runOf(shots), { policy, bucketMs: 1000 });
    expect([analysis.metrics.falseAdmits, analysis.metrics.falseDenials]).toEqual(accuracy);
  });

  it("reports each limit's worst window, and the row's worst as the worst of them", () => {
    const shots = [shot(0, 200), shot(10, 200), shot(1000, 200), shot(1010, 200)];
    const analysis = analyzeAttack(runOf(shots), { policy, bucketMs: 1000 });
    expect(analysis.limits.map((l) => [l.name, l.worstWindowRatio])).toEqual([
      ['burst', 1],
      ['slow', 4 / 3],
    ]);
    expect(analysis.metrics.worstWindowRatio).toBe(4 / 3);
  });
});
