import type { ChalkInstance } from 'chalk';
import type { AuditReport, Confidence, Family, HeaderVerdict } from '../../audit/audit-report.js';
import { formatDuration } from '../../core/duration.js';
import { count } from './table.js';
import { wrapWords } from './wrap.js';
import { renderWrappedTable } from './wrapped-table.js';

/** How each family reads in the summary. */
const FAMILY_NAMES: Record<Family, string> = {
  'fixed-window': 'fixed window',
  'sliding-log': 'sliding log',
  'sliding-counter': 'sliding counter',
  'token-bucket': 'token bucket (GCRA makes the same decisions)',
  'leaky-bucket-queue': 'leaky bucket queue (delays rather than denies)',
  none: 'no limit found',
  unknown: 'limiter unknown: the evidence did not decide',
};

/**
 * The terminal report of `ratelab audit`: one summary line, the findings table (topic,
 * conclusion, evidence, confidence), the header verdicts, the conclusions the bounds made
 * weaker, the requests sent, the time and why it stopped, and the `--expect` verdict when
 * there is one. Fits `width` columns (cells wrap at words); colour only through `paint`.
 */
export function renderAuditReport(report: AuditReport, paint: ChalkInstance, width = 80): string {
  const sections = [
    wrapWords(auditSummary(report), width, '  ')
      .map((line) => paint.bold(line))
      .join('\n'),
    findingsTable(report, paint, width),
    headersTable(report.headers, paint, width),
    weakerLines(report.weaker, width),
    wrapWords(runLine(report), width, '  ').join('\n'),
    expectLines(report, paint, width),
  ];
  return `${sections.filter((section) => section !== '').join('\n\n')}\n`;
}

/**
 * The summary line: `token bucket (GCRA makes the same decisions), 20 per 1s, burst 40,
 * per X-API-Key; Retry-After truthful; 3 over-admitted with 64 in flight`; a partial
 * audit says why it stopped.
 */
export function auditSummary(report: AuditReport): string {
  const what = [FAMILY_NAMES[report.algorithm.family], ...policyParts(report)];
  const scope = scopePart(report);
  if (scope !== undefined) what.push(scope);
  const parts = [what.join(', '), ...headerParts(report), ...concurrencyParts(report)];
  if (report.stoppedBy !== 'done') parts.push(`partial: stopped by ${report.stoppedBy}`);
  return parts.join('; ');
}

function policyParts(report: AuditReport): string[] {
  const { family } = report.algorithm;
  if (family === 'none' || family === 'unknown')
    return family === 'none' ? [`within ${count(report.requests)} requests`] : [];
  const { limit, windowMs, burst } = report.policy;
  const parts = [
    limit === null || windowMs === null ? 'limit not measured' : `${figure(limit)} per ${formatDuration(windowMs)}`,
  ];
  if (burst !== undefined) parts.push(`burst ${figure(burst)}`);
  if (family === 'leaky-bucket-queue' && report.denial.maxDelayMs !== undefined)
    parts.push(`held up to ${formatDuration(Math.round(report.denial.maxDelayMs))}`);
  return parts;
}

function scopePart(report: AuditReport): string | undefined {
  if (report.algorithm.family === 'none') return undefined;
  const { kind, header, routes } = report.scope;
  if (kind === 'header') return `per ${header ?? 'header'}`;
  if (kind === 'route') return routes === 'shared' ? 'one budget shared by the routes' : 'per route';
  if (kind === 'unknown') return 'scope unknown';
  return kind === 'global' ? 'global' : 'per address';
}

/** Retry-After's verdict (or its absence), then each other header found wrong. */
function headerParts(report: AuditReport): string[] {
  if (report.denial.status === null) return [];
  const retryAfter = report.headers.find((header) => header.name.toLowerCase() === 'retry-after');
  const first =
    retryAfter === undefined || retryAfter.verdict === 'missing'
      ? report.denial.retryAfter
        ? []
        : ['no Retry-After']
      : [`Retry-After ${retryAfter.verdict}`];
  const wrong = report.headers.filter((header) => header !== retryAfter && header.verdict === 'wrong');
  return [...first, ...wrong.map((header) => `${header.name} wrong`)];
}

function concurrencyParts(report: AuditReport): string[] {
  const c = report.concurrency;
  if (c === null || c.expected === null) return [];
  const over = c.overAdmitted === 0 ? 'none over-admitted' : `${count(c.overAdmitted)} over-admitted`;
  return [`${over} with ${count(c.inFlight)} in flight`];
}

const CONFIDENCE_COLOR: Record<Confidence, 'green' | 'yellow' | 'red'> = {
  high: 'green',
  medium: 'yellow',
  low: 'red',
};

function findingsTable(report: AuditReport, paint: ChalkInstance, width: number): string {
  if (report.findings.length === 0) return 'no findings: the audit stopped before its first probe';
  const rows = report.findings.map((f) => [f.topic, f.conclusion, f.evidence, f.confidence]);
  return renderWrappedTable(
    [
      { header: 'topic', wrap: true },
      { header: 'conclusion', wrap: true },
      { header: 'evidence', wrap: true },
      { header: 'confidence' },
    ],
    rows,
    width,
    (text, row, column) => {
      if (row === -1) return paint.bold(text);
      const finding = report.findings[row];
      return column === 3 && finding !== undefined ? paint[CONFIDENCE_COLOR[finding.confidence]](text) : text;
    },
  ).trimEnd();
}

const VERDICT_COLOR: Record<HeaderVerdict['verdict'], 'green' | 'yellow' | 'red'> = {
  truthful: 'green',
  missing: 'yellow',
  wrong: 'red',
};

function headersTable(headers: readonly HeaderVerdict[], paint: ChalkInstance, width: number): string {
  if (headers.length === 0) return 'rate-limit headers: none sent';
  return renderWrappedTable(
    [{ header: 'header' }, { header: 'verdict' }, { header: 'detail', wrap: true }],
    headers.map((h) => [h.name, h.verdict, h.detail]),
    width,
    (text, row, column) => {
      if (row === -1) return paint.bold(text);
      const header = headers[row];
      return column === 1 && header !== undefined ? paint[VERDICT_COLOR[header.verdict]](text) : text;
    },
  ).trimEnd();
}

function weakerLines(weaker: readonly string[], width: number): string {
  if (weaker.length === 0) return '';
  const lines = wrapWords('weaker conclusions (the bounds cut the probes short):', width);
  for (const text of weaker) lines.push(...wrapWords(`- ${text}`, width, '  '));
  return lines.join('\n');
}

const STOP_TEXT: Record<AuditReport['stoppedBy'], string> = {
  done: 'every probe had its answer',
  'max-requests': 'stopped at --max-requests: the report is partial',
  'max-time': 'stopped at --max-time: the report is partial',
  interrupted: 'interrupted: the report is partial',
};

/** `612 requests in 8.4s; every probe had its answer`. */
function runLine(report: AuditReport): string {
  const seconds = (report.durationMs / 1000).toFixed(1);
  return `${count(report.requests)} requests in ${seconds} s; ${STOP_TEXT[report.stoppedBy]}`;
}

function expectLines(report: AuditReport, paint: ChalkInstance, width: number): string {
  const expect = report.expect;
  if (expect === undefined) return '';
  if (expect.passed) return paint.green(`--expect ${expect.claim}: passed`);
  const lines = [paint.red(`--expect ${expect.claim}: ${expect.mismatches.length} mismatched`)];
  for (const mismatch of expect.mismatches) lines.push(...wrapWords(`- ${mismatch}`, width, '  '));
  return lines.join('\n');
}

/** A figure to 4 significant digits, without trailing zeros. */
function figure(n: number): string {
  return String(Number(n.toPrecision(4)));
}
