import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/audit-report.js';
import { auditSummary, renderAuditReport } from '../../src/report/text/audit-report.js';
import stripAnsi from '../../src/report/text/strip-ansi.js';
import { SAMPLE_REPORT } from './sample-report.js';

const plain = new Chalk({ level: 0 });
const colour = new Chalk({ level: 1 });

/** The sample with some fields replaced. */
const variant = (change: Partial<AuditReport>): AuditReport => ({ ...SAMPLE_REPORT, ...change });

describe('the summary line says what was found in one sentence', () => {
  it.each<[string, AuditReport, string]>([
    [
      'the sample',
      SAMPLE_REPORT,
      'token bucket (GCRA makes the same decisions), 20 per 1s, burst 40, per X-API-Key; Retry-After truthful; RateLimit wrong; 3 over-admitted with 64 in flight',
    ],
    [
      'a fixed window per address, nothing over-admitted',
      variant({
        algorithm: { ...SAMPLE_REPORT.algorithm, family: 'fixed-window' },
        policy: { limit: 100, windowMs: 60_000, range: {} },
        scope: { kind: 'address', evidence: [] },
        headers: [{ name: 'Retry-After', verdict: 'wrong', detail: 'ms, not s' }],
        concurrency: { inFlight: 64, admitted: 64, expected: 100, overAdmitted: 0 },
      }),
      'fixed window, 100 per 1m, per address; Retry-After wrong; none over-admitted with 64 in flight',
    ],
    [
      'nothing limited: said plainly, no scope, no headers',
      variant({
        algorithm: { ...SAMPLE_REPORT.algorithm, family: 'none' },
        policy: { limit: null, windowMs: null, range: {} },
        denial: { status: null, retryAfter: false, headers: [] },
        headers: [],
        concurrency: { inFlight: 64, admitted: 64, expected: null, overAdmitted: 0 },
        requests: 5000,
        stoppedBy: 'max-requests',
      }),
      'no limit found, within 5,000 requests; partial: stopped by max-requests',
    ],
    [
      'undecided, interrupted before the concurrency probe',
      variant({
        algorithm: { ...SAMPLE_REPORT.algorithm, family: 'unknown' },
        scope: { kind: 'unknown', evidence: [] },
        denial: { status: 429, retryAfter: false, headers: [] },
        headers: [],
        concurrency: null,
        stoppedBy: 'interrupted',
      }),
      'limiter unknown: the evidence did not decide, scope unknown; no Retry-After; partial: stopped by interrupted',
    ],
    [
      'a queue: how long it held requests',
      variant({
        algorithm: { ...SAMPLE_REPORT.algorithm, family: 'leaky-bucket-queue' },
        policy: { limit: 10, windowMs: 1000, ratePerSec: 10, range: {} },
        scope: { kind: 'global', evidence: [] },
        denial: { status: null, retryAfter: false, headers: [], maxDelayMs: 1900 },
        headers: [],
        concurrency: null,
      }),
      'leaky bucket queue (delays rather than denies), 10 per 1s, held up to 1.9s, global',
    ],
  ])('%s', (_why, report, summary) => {
    expect(auditSummary(report)).toBe(summary);
  });
});

describe('the terminal report', () => {
  const text = renderAuditReport(SAMPLE_REPORT, plain, 80);

  it('starts with the summary, then the findings, the headers, the weaker conclusions and the run', () => {
    const order = ['token bucket (GCRA', 'topic', 'header ', 'weaker conclusions', '612 requests in 8.4 s'].map(
      (part) => text.indexOf(part),
    );
    expect(order.every((at) => at >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('has a row per finding with its confidence, and a verdict per header', () => {
    for (const finding of SAMPLE_REPORT.findings)
      expect(text).toMatch(new RegExp(`^${finding.topic} .* ${finding.confidence}$`, 'm'));
    for (const header of SAMPLE_REPORT.headers)
      expect(text).toMatch(new RegExp(`^${header.name} +${header.verdict} `, 'm'));
  });

  it.each([80, 60, 40])('fits %i columns, wrapping the long cells', (width) => {
    const lines = renderAuditReport(SAMPLE_REPORT, plain, width).split('\n');
    expect(lines.filter((line) => line.length > width)).toEqual([]);
  });

  it('cuts a word longer than its column (a denial body) at the column', () => {
    const body = '{"error":"too_many_requests","message":"Rate limit exceeded"}';
    const report = variant({
      findings: [{ topic: 'denial', conclusion: 'status 429', evidence: `body: ${body}`, confidence: 'high' }],
    });
    const lines = renderAuditReport(report, plain, 80).split('\n');
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    // Its pieces on lines of their own, one after the other.
    expect(lines.join('').replace(/\s+/g, '')).toContain('{"error":"too_many_requests","message":"Rate');
  });

  it('is plain text without colour, and the same text with it', () => {
    const coloured = renderAuditReport(SAMPLE_REPORT, colour, 80);
    expect(text).not.toContain('\u001b[');
    expect(coloured).toContain('\u001b[');
    expect(stripAnsi(coloured)).toBe(text);
  });

  it('names each --expect mismatch, or says it passed', () => {
    const failed = renderAuditReport(
      variant({
        expect: { claim: 'token-bucket 40/1s', passed: false, mismatches: ['rate: expected 40 per 1s, measured 20.4'] },
      }),
      plain,
    );
    expect(failed).toMatch(
      /^--expect token-bucket 40\/1s: 1 mismatched\n- rate: expected 40 per 1s, measured 20.4\n$/m,
    );
    const passed = renderAuditReport(
      variant({ expect: { claim: 'token-bucket 20/1s burst 40', passed: true, mismatches: [] } }),
      plain,
    );
    expect(passed).toMatch(/--expect token-bucket 20\/1s burst 40: passed\n$/);
    expect(text).not.toContain('--expect');
  });

  it('says why a partial audit stopped, and when nothing was found', () => {
    const partial = renderAuditReport(variant({ findings: [], headers: [], stoppedBy: 'max-time' }), plain);
    expect(partial).toContain('no findings: the audit stopped before its first probe');
    expect(partial).toContain('rate-limit headers: none sent');
    expect(partial).toContain('612 requests in 8.4 s; stopped at --max-time: the report is partial');
  });
});
