import type { Outcome } from '../core/decision-event.js';
import { formatDuration } from '../core/duration.js';
import type { AttackAnalysis } from '../attack/analysis.js';
import type { AttackRun } from '../attack/runner.js';
import type { JudgedPolicy } from '../attack/endpoint-policy.js';
import { toRow } from '../sim/compare.js';
import type { WorkloadComparison } from '../sim/comparison.js';
import type { Workload } from '../sim/workload.js';

/** One attack, as reported. */
export interface AttackReport {
  url: URL;
  workload: Workload;
  speed: number;
  run: AttackRun;
  analysis: AttackAnalysis;
  /** The server's own counts during the run, with `--metrics-url`. */
  serverCounts?: ServerCounts;
}

/** What the client saw of its own requests: every request sent, the 2xx and the 429 among their answers. */
export interface ClientCounts {
  requests: number;
  admitted: number;
  denied: number;
}

/** The server's count of its decisions during a run (its `ratelab_decisions_total` after minus before), beside the client's. */
export interface ServerCounts {
  /** The metrics page read before and after the run. */
  url: string;
  /** Decisions per outcome during the run, summed over the series' `limiter` and `tier`. */
  during: Record<Outcome, number>;
  client: ClientCounts;
}

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
    ...(analysis.policy.limits === undefined
      ? {}
      : { limits: analysis.policy.limits.map(({ name, limit, windowMs }) => ({ name, limit, windowMs })) }),
    rows: [toRow(workload.name, { name, stateBytesPerKey: undefined }, analysis.metrics, undefined)],
    timelines: [{ algorithm: name, timeline: analysis.metrics.timeline }],
    worstWindows: [analysis.metrics.worstWindow],
    notes: [...attackNotes(report), ...workload.notes()],
  };
}

/** The HTTP facts of an attack, one line each. */
export function attackNotes(report: AttackReport): string[] {
  const { analysis, run } = report;
  const { policy, responses: r, latencyMs: lat, headerProblems } = analysis;
  const errors = Object.entries(r.errorCodes)
    .map(([code, n]) => `${code} x${n}`)
    .join(', ');
  const notes = [
    `policy: ${describePolicy(policy, report.speed)}; judged in wall-clock time`,
    `requests: ${r.sent} sent; ${r.admitted} 2xx, ${r.limited} 429, ${r.other} other, ${r.errors} without a response${errors ? ` (${errors})` : ''}${r.aborted > 0 ? `, ${r.aborted} aborted by the stop` : ''}`,
  ];
  if (analysis.limits.length > 0) notes.push(limitsNote(analysis.limits));
  if (lat) notes.push(`latency: p50 ${ms(lat.p50)}, p90 ${ms(lat.p90)}, p99 ${ms(lat.p99)}, max ${ms(lat.max)}`);
  notes.push(probeNote(analysis.probes));
  notes.push(
    headerProblems.count === 0
      ? 'headers: consistent on every decided response'
      : `headers: ${headerProblems.count} inconsistent responses, e.g. ${headerProblems.examples[0]}`,
  );
  const stop = run.stoppedBy === 'done' ? 'ran to the end' : `stopped by ${run.stoppedBy}, ${run.unsent} events unsent`;
  notes.push(`timing: ${stop}; the latest request left ${ms(run.maxLagMs)} behind schedule`);
  return notes;
}

/**
 * The policy and where it came from: `5 per 1s, read from RateLimit-Policy`; every limit
 * when it lists several (`20 per 1s and 1000 per 1h, read from RateLimit-Policy`).
 */
export function describePolicy(policy: JudgedPolicy, speed: number): string {
  const { limit, window } = policy.source;
  const head = (policy.limits ?? [policy]).map((l) => `${l.limit} per ${formatDuration(l.windowMs)}`).join(' and ');
  if (limit === '--limit') return `${head}, from --limit/--window`;
  if (limit === 'scenario') return `${head}, the scenario's policy at ${speed}x speed`;
  if (limit === window) return `${head}, read from ${limit}`;
  return `${head}, limit read from ${limit}, window from ${window}`;
}

/**
 * Each advertised limit's worst window: `worst window per limit: "1s" 1.00x (5 of 5 in 1s),
 * "10s" 0.95x (19 of 20 in 10s)`; at most 1.00x each when the endpoint holds every limit.
 */
function limitsNote(limits: AttackAnalysis['limits']): string {
  const each = limits.map(
    (l) =>
      `${JSON.stringify(l.name)} ${l.worstWindowRatio.toFixed(2)}x (${l.worstWindow?.units ?? 0} of ${l.limit} in ${formatDuration(l.windowMs)})`,
  );
  return `worst window per limit: ${each.join(', ')}`;
}

/** The Retry-After probes, apart from the workload's requests (they are not in the row). */
function probeNote(probes: AttackAnalysis['probes']): string {
  if (probes.sent === 0) return 'Retry-After probes: none sent (not in the figures above)';
  const { sent, honest, dishonest, contended, undecided } = probes;
  return `Retry-After probes: ${sent} sent (not in the figures above): ${honest} honest, ${dishonest} dishonest, ${contended} contended, ${undecided} undecided`;
}

function ms(value: number): string {
  return `${value.toFixed(1)} ms`;
}
