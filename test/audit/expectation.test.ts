import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/audit-report.js';
import { judgeExpectation, parseExpectation, tierExpectation, type AuditClaim } from '../../src/audit/expectation.js';
import { RatelabError } from '../../src/core/errors.js';
import { SAMPLE_REPORT } from './sample-report.js';
import { tiersFixture } from '../support/fixtures.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-expect-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('parseExpectation reads the --expect grammar', () => {
  it.each<[string, Omit<AuditClaim, 'text'>, string]>([
    // text, claim, why
    [
      'token-bucket 20/1s burst 40',
      { family: 'token-bucket', limit: 20, windowMs: 1000, burst: 40 },
      'the issue example',
    ],
    ['gcra 20/1s', { family: 'token-bucket', limit: 20, windowMs: 1000 }, 'GCRA is the token bucket family'],
    ['fixed-window 100/1m', { family: 'fixed-window', limit: 100, windowMs: 60_000 }, 'a window in minutes'],
    ['sliding-log 5/500ms', { family: 'sliding-log', limit: 5, windowMs: 500 }, 'a window in ms'],
    ['sliding-counter 100/m', { family: 'sliding-counter', limit: 100, windowMs: 60_000 }, 'a bare unit is one of it'],
    [
      'fixed-window 10/1s per address',
      { family: 'fixed-window', limit: 10, windowMs: 1000, scope: { kind: 'address' } },
      'per address',
    ],
    [
      'token-bucket 20/1s burst 40 per header X-API-Key',
      { family: 'token-bucket', limit: 20, windowMs: 1000, burst: 40, scope: { kind: 'header', header: 'X-API-Key' } },
      'burst and a header scope',
    ],
    [
      'fixed-window 10/1s per route',
      { family: 'fixed-window', limit: 10, windowMs: 1000, scope: { kind: 'route' } },
      'per route',
    ],
    [
      'fixed-window 10/1s global',
      { family: 'fixed-window', limit: 10, windowMs: 1000, scope: { kind: 'global' } },
      'global',
    ],
    ['  Token-Bucket   20/1s ', { family: 'token-bucket', limit: 20, windowMs: 1000 }, 'blanks and case of the family'],
    ['none', { family: 'none' }, 'nothing is limited: no figures'],
  ])('%j', (text, claim) => {
    expect(parseExpectation(text, '--expect')).toMatchObject(claim);
  });

  it('gives the claim a canonical text', () => {
    expect(parseExpectation('gcra 20/1000ms   per header X-API-Key', '--expect').text).toBe(
      'token-bucket 20/1s per header X-API-Key',
    );
  });

  it.each<[string, RegExp, string]>([
    // text, the error, why
    ['', /^--expect: expected a family \(fixed-window, .*\), got "" in ""$/, 'nothing given'],
    ['leaky 20/1s', /^--expect: expected a family .*got "leaky"/, 'not a family'],
    ['unknown 20/1s', /expected a family/, 'a claim says what the limiter is'],
    ['token-bucket', /expected <limit>\/<window> after the family \(20\/1s\), got ""/, 'no rate'],
    ['token-bucket 20', /expected <limit>\/<window>/, 'no window'],
    ['token-bucket 0/1s', /the limit: expected a whole number >= 1, got "0"/, 'a zero limit'],
    ['token-bucket 2.5/1s', /the limit: expected a whole number >= 1, got "2.5"/, 'a fraction'],
    ['token-bucket 20/1x', /expected a window such as 500ms, 1s or 1m after the \/, got "1x"/, 'a bad unit'],
    ['token-bucket 20/1s burst', /burst: expected a whole number >= 1, got ""/, 'burst without a number'],
    [
      'fixed-window 20/1s burst 40',
      /burst applies to token-bucket and leaky-bucket-queue only/,
      'a window has no burst',
    ],
    ['token-bucket 20/1s per header', /per header: expected a header name, got ""/, 'no header named'],
    ['token-bucket 20/1s per client', /expected burst <n>, per address, .* got "per client"/, 'an unknown scope'],
    ['token-bucket 20/1s global extra', /unexpected "extra"/, 'words after the scope'],
    ['none 20/1s', /none takes nothing after it, got "20\/1s"/, 'none has no figures'],
  ])('refuses %j in one line naming --expect', (text, message) => {
    let thrown: unknown;
    try {
      parseExpectation(text, '--expect');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(RatelabError);
    expect((thrown as RatelabError).code).toBe('INVALID_ARGUMENT');
    expect((thrown as RatelabError).message).toMatch(message);
    expect((thrown as RatelabError).message).not.toContain('\n');
  });
});

describe('tierExpectation takes a tier of a tiers file as the claim', () => {
  const file = join(scratch, 'tiers.yaml');
  writeFileSync(
    file,
    [
      'tiers:',
      '  free: { algorithm: fixed-window, limit: 100, window: 1m }',
      '  pro: { algorithm: gcra, limit: 20, window: 1s, burst: 40 }',
      '  internal: unlimited',
      'default: free',
      '',
    ].join('\n'),
  );

  it.each<[string, Omit<AuditClaim, 'text'>, string]>([
    ['free', { family: 'fixed-window', limit: 100, windowMs: 60_000 }, 'a window tier'],
    [
      'pro',
      { family: 'token-bucket', limit: 20, windowMs: 1000, burst: 40 },
      'gcra as the token bucket, with its burst',
    ],
    ['internal', { family: 'none' }, 'unlimited claims nothing is limited'],
  ])('tier %s', (tier, claim) => {
    expect(tierExpectation(file, tier, 'tiers.yaml')).toMatchObject(claim);
  });

  it('names the tiers a file has when the tier is not one', () => {
    expect(() => tierExpectation(file, 'gold', 'tiers.yaml')).toThrow(
      /^--tier: tiers.yaml has no tier "gold" \(it has free, pro, internal\)$/,
    );
  });

  it('refuses a tier of several limits: the audit infers one policy, so it has no single claim to judge', () => {
    expect(() => tierExpectation(tiersFixture('two-limits.yaml'), 'composite', 'two-limits.yaml')).toThrow(
      /^--tier: tier "composite" of two-limits.yaml lists 2 limits; an audit judges a tier of one limit/,
    );
  });

  it('passes on the tiers file errors', () => {
    expect(() => tierExpectation(join(scratch, 'missing.yaml'), 'free', 'missing.yaml')).toThrow(RatelabError);
  });
});

/** The sample report with its policy, family or scope replaced. */
function measured(change: {
  family?: AuditReport['algorithm']['family'];
  policy?: Partial<AuditReport['policy']>;
  scope?: AuditReport['scope'];
}): AuditReport {
  return {
    ...SAMPLE_REPORT,
    algorithm: { ...SAMPLE_REPORT.algorithm, family: change.family ?? SAMPLE_REPORT.algorithm.family },
    policy: { ...SAMPLE_REPORT.policy, ...change.policy },
    scope: change.scope ?? SAMPLE_REPORT.scope,
  };
}

const fixedWindow = (limit: number | null, windowMs: number | null, range: AuditReport['policy']['range'] = {}) =>
  measured({ family: 'fixed-window', policy: { limit, windowMs, range, burst: undefined, ratePerSec: undefined } });

describe('judgeExpectation names each part the audit contradicts', () => {
  it.each<[string, AuditReport, string[], string]>([
    // claim, measured, mismatches, why
    [
      'token-bucket 20/1s burst 40 per header x-api-key',
      SAMPLE_REPORT,
      [],
      'the sample measured: header names ignore case',
    ],
    ['gcra 20/1s burst 40', SAMPLE_REPORT, [], 'gcra is the token bucket family'],
    ['token-bucket 40/2s burst 40', SAMPLE_REPORT, [], 'the rate is per second, whatever the window'],
    [
      'token-bucket 40/1s',
      SAMPLE_REPORT,
      ['rate: expected 40 per 1s, measured 20.4 per 1s (19.6-21.1)'],
      'the burst defaults to the limit (40): only the rate is off',
    ],
    [
      'token-bucket 20/1s',
      SAMPLE_REPORT,
      ['burst: expected 20, measured 40 (40-40)'],
      'the burst defaults to the limit: 20, measured 40',
    ],
    ['token-bucket 22/1s burst 40', SAMPLE_REPORT, [], '22 is above the range, but 20.4 is within 10% of it'],
    [
      'token-bucket 23/1s burst 40',
      SAMPLE_REPORT,
      ['rate: expected 23 per 1s, measured 20.4 per 1s (19.6-21.1)'],
      'beyond 10% and outside the range',
    ],
    ['token-bucket 20/1s burst 42', SAMPLE_REPORT, [], 'burst 42: 40 is within 5%'],
    ['token-bucket 20/1s burst 43', SAMPLE_REPORT, ['burst: expected 43, measured 40 (40-40)'], 'burst 43: beyond 5%'],
    [
      'fixed-window 20/1s',
      SAMPLE_REPORT,
      ['family: expected fixed-window, measured token-bucket'],
      "the figures are the window's equivalent: they match",
    ],
    [
      'token-bucket 20/1s burst 40 per address',
      SAMPLE_REPORT,
      ['scope: expected per address, measured per header X-API-Key'],
      'a wrong scope',
    ],
    [
      'token-bucket 20/1s burst 40 per header Authorization',
      SAMPLE_REPORT,
      ['scope: expected per header Authorization, measured per header X-API-Key'],
      'another header',
    ],
    [
      'fixed-window 100/1s',
      fixedWindow(50, 1000, { limit: [45, 55] }),
      ['limit: expected 100 per 1s, measured 50 (45-55)'],
      'the limit halved',
    ],
    ['fixed-window 100/1s', fixedWindow(96, 1000), [], '96 is within 5% of 100'],
    [
      'fixed-window 100/1s',
      fixedWindow(94, 1000),
      ['limit: expected 100 per 1s, measured 94'],
      '94 is not, and no range was measured',
    ],
    ['fixed-window 100/1s', fixedWindow(90, 1000, { limit: [88, 101] }), [], 'the measured range includes the claim'],
    ['fixed-window 100/1s', fixedWindow(100, 1080), [], 'a window within 10%'],
    [
      'fixed-window 100/1s',
      fixedWindow(100, 2000, { windowMs: [1900, 2100] }),
      ['window: expected 1s, measured 2s (1.9s-2.1s)'],
      'the window doubled',
    ],
    [
      'fixed-window 100/1s',
      fixedWindow(null, null),
      ['limit: expected 100 per 1s, not measured', 'window: expected 1s, not measured'],
      'the audit stopped before measuring',
    ],
    [
      'fixed-window 100/1s',
      measured({ family: 'unknown' }),
      ['family: expected fixed-window, measured unknown'],
      'undecided: the family says it, no figure is judged',
    ],
    [
      'token-bucket 20/1s',
      measured({ family: 'none' }),
      ['family: expected token-bucket, measured none'],
      'nothing limited',
    ],
    ['none', measured({ family: 'none' }), [], 'nothing limited, as claimed'],
    ['none', SAMPLE_REPORT, ['family: expected none, measured token-bucket'], 'limited, though claimed not'],
    [
      'fixed-window 100/1s global',
      fixedWindow(100, 1000),
      ['scope: expected global, measured per header X-API-Key'],
      'the scope line follows the figures',
    ],
    [
      'leaky-bucket-queue 20/1s',
      measured({ family: 'leaky-bucket-queue', policy: { burst: undefined } }),
      [],
      'a queue: the burst is judged only when claimed',
    ],
  ])('%s against %s', (claim, report, mismatches) => {
    const judged = judgeExpectation(report, parseExpectation(claim, '--expect'));
    expect(judged.mismatches).toEqual(mismatches);
    expect(judged.passed).toBe(mismatches.length === 0);
  });

  it('records the claim in its canonical text', () => {
    expect(judgeExpectation(SAMPLE_REPORT, parseExpectation('gcra 20/1s burst 40', '--expect')).claim).toBe(
      'token-bucket 20/1s burst 40',
    );
  });
});
