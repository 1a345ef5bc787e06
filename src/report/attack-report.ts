import { formatDuration } from '../duration.js';
import type { AttackAnalysis } from '../http/attack-analysis.js';
import type { AttackRun } from '../http/attack-runner.js';
import { toRow, type WorkloadComparison } from '../sim/compare.js';
import type { Workload } from '../sim/workload.js';

/** One attack, as reported. */
export interface AttackReport {
  url: URL;
  workload: Workload;
  speed: number;
  run: AttackRun;
  analysis: AttackAnalysis;
}

const POLICY_SOURCES = { flags: '--limit/--window', endpoint: "the endpoint's RateLimit-Policy", scenario: "the scenario's policy at this speed" } as const;

/**
 * The attack as a comparison with one row, named for the endpoint, so `compare`'s table,
 * sentence, charts, CSV and JSON render it unchanged. Times are wall-clock; the HTTP facts
 * (statuses, latency, Retry-After honesty, header consistency, timing) are its notes.
 */
export function attackComparison(report: AttackReport): WorkloadComparison {
  const { url, workload, analysis } = report;
  const name = url.host;
  const { limit, windowMs } = analysis.policy;
  return {
    name: workload.name,
    description: `${workload.description} Replayed against ${url.href} at ${report.speed}x.`,
    policy: { limit, windowMs },
    rows: [toRow(workload.name, { name, stateBytesPerKey: undefined }, analysis.metrics, undefined)],
    timelines: [{ algorithm: name, timeline: analysis.metrics.timeline }],
    worstWindows: [analysis.metrics.worstWindow],
    notes: [...attackNotes(report), ...workload.notes()],
  };
}

/** The HTTP facts of an attack, one line each. */
export function attackNotes(report: AttackReport): string[] {
  const { analysis, run } = report;
  const { policy, responses: r, latencyMs: lat, retryAfter: ra, headerProblems } = analysis;
  const errors = Object.entries(r.errorCodes).map(([code, n]) => `${code} x${n}`).join(', ');
  const notes = [
    `judged as ${policy.limit} per ${formatDuration(policy.windowMs)} (${POLICY_SOURCES[policy.source]}), in wall-clock time`,
    `responses: ${r.sent} sent; ${r.admitted} 2xx, ${r.limited} 429, ${r.other} other, ${r.errors} without a response${errors ? ` (${errors})` : ''}`,
  ];
  if (lat) notes.push(`latency: p50 ${ms(lat.p50)}, p90 ${ms(lat.p90)}, p99 ${ms(lat.p99)}, max ${ms(lat.max)}`);
  notes.push(`Retry-After: ${ra.probes} retries at the promised time: ${ra.honest} admitted, ${ra.broken} broken promises, ${ra.contended} contended, ${ra.undecided} undecided`);
  notes.push(headerProblems.count === 0 ? 'headers: consistent on every decided response' : `headers: ${headerProblems.count} inconsistent responses, e.g. ${headerProblems.examples[0]}`);
  const stop = run.stoppedBy === 'done' ? 'ran to the end' : `stopped by ${run.stoppedBy}, ${run.unsent} events unsent`;
  notes.push(`timing: ${stop}; the latest request left ${ms(run.maxLagMs)} behind schedule`);
  return notes;
}

/** The `attack` section of the JSON report: everything measured beyond compare's rows. */
export function attackJson(report: AttackReport): Record<string, unknown> {
  const { analysis, run } = report;
  return {
    attack: {
      url: report.url.href,
      speed: report.speed,
      startedAt: new Date(run.startEpochMs).toISOString(),
      stoppedBy: run.stoppedBy,
      unsent: run.unsent,
      maxLagMs: Math.round(run.maxLagMs * 10) / 10,
      policySource: analysis.policy.source,
      responses: analysis.responses,
      latencyMs: analysis.latencyMs,
      retryAfter: analysis.retryAfter,
      headerProblems: analysis.headerProblems,
    },
  };
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}
