import { stringify } from 'csv-stringify/sync';
import type { CommandIO } from '../cli/io.js';
import { formatDuration } from '../duration.js';
import type { AttackAnalysis } from '../http/attack-analysis.js';
import type { AttackRun } from '../http/attack-runner.js';
import { painter } from './color.js';
import { renderTable } from './table.js';

/** Output formats of `ratelab attack`. */
export type AttackFormat = 'table' | 'json' | 'csv';

/** One attack, as reported. */
export interface AttackReport {
  url: string;
  scenario: string;
  speed: number;
  run: AttackRun;
  analysis: AttackAnalysis;
}

/** Renders an attack report: a table for people, JSON or one CSV row per run for tools. */
export function renderAttack(format: AttackFormat, report: AttackReport, io: CommandIO, color?: boolean): string {
  if (format === 'json') return `${JSON.stringify(toJson(report), null, 2)}\n`;
  if (format === 'csv') return renderCsv(report);
  return renderText(report, io, color);
}

const SOURCES = { flags: '--limit/--window', endpoint: "the endpoint's RateLimit-Policy", scenario: "the scenario's policy at this speed" } as const;

function renderText(report: AttackReport, io: CommandIO, color?: boolean): string {
  const paint = painter(io, color);
  const { analysis, run } = report;
  const { metrics: m, policy, responses: r, retryAfter: ra, latencyMs: lat } = analysis;
  const lines = [`${paint.bold(report.url)}: ${report.scenario} at ${report.speed}x, judged as ${policy.limit} per ${formatDuration(policy.windowMs)} (${SOURCES[policy.source]})`, ''];
  const ratio = m.worstWindowRatio > 1.001 ? paint.red(m.worstWindowRatio.toFixed(2)) : m.worstWindowRatio.toFixed(2);
  lines.push(
    renderTable(
      [
        { header: 'offered', align: 'right' },
        { header: 'admitted', align: 'right' },
        { header: 'denied', align: 'right' },
        { header: 'false admits', align: 'right' },
        { header: 'false denials', align: 'right' },
        { header: 'error %', align: 'right' },
        { header: 'worst window', align: 'right' },
        { header: 'fairness', align: 'right' },
      ],
      [[m.offered, m.admitted, m.denied, m.falseAdmits, m.falseDenials, m.errorRate.toFixed(2), ratio, m.fairness === null ? '-' : m.fairness.toFixed(3)].map(String)],
    ).trimEnd(),
    '',
  );
  const errors = r.errors === 0 ? '0 errors' : paint.red(`${r.errors} errors (${Object.entries(r.errorCodes).map(([code, n]) => `${code} x${n}`).join(', ')})`);
  lines.push(`responses: ${r.sent} sent; ${r.admitted} 2xx, ${r.limited} 429, ${r.other} other, ${errors}`);
  if (lat) lines.push(`latency: p50 ${ms(lat.p50)}, p90 ${ms(lat.p90)}, p99 ${ms(lat.p99)}, max ${ms(lat.max)}`);
  const broken = ra.broken > 0 ? paint.red(`${ra.broken} broken`) : '0 broken';
  lines.push(`Retry-After: ${ra.probes} retries at the promised time: ${ra.honest} admitted, ${broken}, ${ra.contended} contended, ${ra.undecided} undecided`);
  const problems = analysis.headerProblems;
  lines.push(problems.count === 0 ? 'headers: consistent on every decided response' : paint.red(`headers: ${problems.count} inconsistent responses, e.g. ${problems.examples[0]}`));
  lines.push(`timing: stopped ${run.stoppedBy === 'done' ? 'at the end of the scenario' : `by ${run.stoppedBy}`}; latest request ${ms(run.maxLagMs)} behind schedule`);
  return `${lines.join('\n')}\n`;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}

function toJson(report: AttackReport): object {
  const { run, analysis } = report;
  return {
    url: report.url,
    scenario: report.scenario,
    speed: report.speed,
    startedAt: new Date(run.startEpochMs).toISOString(),
    stoppedBy: run.stoppedBy,
    unsent: run.unsent,
    maxLagMs: run.maxLagMs,
    ...analysis,
  };
}

function renderCsv(report: AttackReport): string {
  const { metrics: m, responses: r, retryAfter: ra, policy } = report.analysis;
  const row = {
    url: report.url,
    scenario: report.scenario,
    speed: report.speed,
    limit: policy.limit,
    window_ms: policy.windowMs,
    offered: m.offered,
    admitted: m.admitted,
    denied: m.denied,
    false_admits: m.falseAdmits,
    false_denials: m.falseDenials,
    error_rate_pct: m.errorRate,
    worst_window_ratio: m.worstWindowRatio,
    fairness: m.fairness ?? '',
    status_2xx: r.admitted,
    status_429: r.limited,
    status_other: r.other,
    errors: r.errors,
    retry_probes: ra.probes,
    retry_honest: ra.honest,
    retry_broken: ra.broken,
    header_problems: report.analysis.headerProblems.count,
  };
  return stringify([row], { header: true });
}
