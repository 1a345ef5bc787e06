import type { AuditReport, ProbeTimeline, ShotOutcome } from '../../audit/audit-report.js';
import { roundToPlaces } from '../round.js';
import { auditSummary } from '../text/audit-report.js';
import { htmlAssets } from './html-assets.js';
import { htmlPage, type HtmlTable } from './html-document.js';

/**
 * What the audit page shows, as plain data: audit-page.browser.js draws it. Times are ms
 * since the audit's start.
 */
export interface AuditPage {
  title: string;
  /** What was audited, and how long it took. */
  subtitle: string;
  /** The terminal report's summary line. */
  summary: string;
  /** The findings, the header verdicts, the run and the `--expect` verdict. */
  tables: HtmlTable[];
  timelines: AuditPageTimeline[];
}

/** One probe's requests in the order sent: a point per request, the oracle's decisions over them. */
export interface AuditPageTimeline {
  probe: string;
  purpose: string;
  /** When each request left, ms, ascending. */
  sentMs: number[];
  /** Its response time, ms (0 for a request that got no response). */
  latencyMs: number[];
  outcome: ShotOutcome[];
  /** What the inferred policy's exact oracle does with each request, when a policy was inferred. */
  oracle: boolean[] | null;
}

/**
 * The self-contained HTML report of `ratelab audit`: the summary, the findings and header
 * tables, and per probe a timeline of its requests (admitted, delayed, denied and error
 * each a mark of its own, at its response time) with the running count the endpoint
 * admitted against the one its inferred policy's exact oracle admits.
 */
export function auditHtml(report: AuditReport): string {
  return htmlPage('ratelab audit', auditPage(report), htmlAssets().auditPageScript);
}

/** The page's data (exported for the tests). */
export function auditPage(report: AuditReport): AuditPage {
  return {
    title: 'ratelab audit',
    subtitle: `${report.target} (${report.paths.join(', ')}): ${report.requests} requests in ${roundToPlaces(report.durationMs / 1000, 1)} s, ${report.stoppedBy === 'done' ? 'every probe answered' : `stopped by ${report.stoppedBy}`}`,
    summary: auditSummary(report),
    tables: tables(report),
    timelines: report.timelines.map(pageTimeline),
  };
}

function tables(report: AuditReport): HtmlTable[] {
  const out: HtmlTable[] = [
    {
      title: 'findings',
      columns: ['topic', 'conclusion', 'evidence', 'confidence'],
      rows: report.findings.map((f) => [f.topic, f.conclusion, f.evidence, f.confidence]),
    },
    {
      title: 'rate-limit headers',
      columns: ['header', 'verdict', 'detail'],
      rows: report.headers.map((h) => [h.name, h.verdict, h.detail]),
    },
  ];
  if (report.weaker.length > 0)
    out.push({ title: 'weaker conclusions', columns: ['why'], rows: report.weaker.map((text) => [text]) });
  if (report.expect !== undefined)
    out.push({
      title: `--expect ${report.expect.claim}: ${report.expect.passed ? 'passed' : 'failed'}`,
      columns: ['mismatch'],
      rows: report.expect.passed
        ? [['none: the audit bears the claim out']]
        : report.expect.mismatches.map((text) => [text]),
    });
  return out;
}

/** The probe's shots in the order they left (the oracle's decisions kept with them). */
function pageTimeline(timeline: ProbeTimeline): AuditPageTimeline {
  const order = timeline.shots.map((_, i) => i).sort((a, b) => shotAt(timeline, a) - shotAt(timeline, b));
  const shots = order.map((i) => timeline.shots[i] as ProbeTimeline['shots'][number]);
  const oracle = timeline.oracle;
  return {
    probe: timeline.probe,
    purpose: timeline.purpose,
    sentMs: shots.map((shot) => roundToPlaces(shot.sentMs, 2)),
    latencyMs: shots.map((shot) => roundToPlaces(shot.latencyMs, 2)),
    outcome: shots.map((shot) => shot.outcome),
    oracle: oracle === undefined ? null : order.map((i) => oracle[i] === true),
  };
}

function shotAt(timeline: ProbeTimeline, i: number): number {
  return timeline.shots[i]?.sentMs ?? 0;
}
