import { formatDuration } from '../../core/duration.js';
import type { ComparisonRow, WorkloadComparison } from '../../sim/comparison.js';
import { runSpan } from '../chart-frame.js';
import { formatRunTime } from '../run-time.js';

/** Ratios within this of 1.0 count as "at the limit" (they are sums of whole units / limit). */
const EPSILON = 1e-9;

/**
 * One plain sentence saying what a workload showed: which algorithm let the most through
 * in its worst window, by how much, for which key and when, against which stayed within
 * the limit; or, when all did, where the fullest window was and which algorithm differed
 * most from the exact answer.
 */
export function summarise(result: WorkloadComparison): string {
  const lesson = clientKindsLesson(result.rows);
  return lesson === '' ? limitSentence(result) : `${limitSentence(result)} ${lesson}`;
}

/**
 * For retry clients of several kinds (labels whose waits are known): what each kind sent
 * per request admitted, over every algorithm's replay (the waste), the least first, and
 * the slowest wait of the least wasteful; '' otherwise.
 */
function clientKindsLesson(rows: readonly ComparisonRow[]): string {
  const kinds = new Map<string, { offered: number; admitted: number; p99: number }>();
  for (const row of rows)
    for (const label of row.labels ?? []) {
      if (label.wait === undefined) continue;
      const kind = kinds.get(label.label) ?? { offered: 0, admitted: 0, p99: 0 };
      kind.offered += label.offered;
      kind.admitted += label.admitted;
      kind.p99 = Math.max(kind.p99, label.wait.p99);
      kinds.set(label.label, kind);
    }
  if (kinds.size < 2) return '';
  const ranked = [...kinds.entries()]
    .map(([label, kind]) => ({ label, ...kind, waste: kind.admitted === 0 ? Infinity : kind.offered / kind.admitted }))
    .sort((a, b) => a.waste - b.waste);
  const best = ranked[0] as (typeof ranked)[number];
  const figures = ranked.map(
    (kind) => `${kind.label} ${Number.isFinite(kind.waste) ? kind.waste.toFixed(2) : 'none admitted'}`,
  );
  return `Sent per admitted: ${figures.join(', ')} (${best.label} wasted least; slowest call ${formatDuration(Math.round(best.p99))}).`;
}

function limitSentence(result: WorkloadComparison): string {
  const rows = result.rows;
  if (rows.length === 0) return `${result.name}: nothing was replayed.`;
  const worst = rows.reduce((a, b) => (b.worstWindowRatio > a.worstWindowRatio ? b : a));
  // A composite's worst window is its worst limit's: say that limit's window and size.
  const bound =
    worst.limits?.find((limit) => !limit.watched && limit.ratio === worst.worstWindowRatio) ?? result.policy;
  const window = formatDuration(bound.windowMs);
  const where = worstWindowPlace(result, worst);
  const within = rows.filter((row) => row.worstWindowRatio <= 1 + EPSILON).map((row) => row.algorithm);
  if (worst.worstWindowRatio > 1 + EPSILON) {
    const units = Math.round(worst.worstWindowRatio * bound.limit);
    const others = rows
      .filter((row) => row !== worst && row.worstWindowRatio > 1 + EPSILON)
      .sort((a, b) => b.worstWindowRatio - a.worstWindowRatio)
      .map((row) => `${row.algorithm} ${row.worstWindowRatio.toFixed(2)}x`);
    const then = others.length > 0 ? `, then ${list(others)}` : '';
    const rest = within.length > 0 ? `; ${list(within)} stayed within it` : '; none stayed within it';
    return `${result.name}: ${worst.algorithm} let the most through in one ${window} window, ${worst.worstWindowRatio.toFixed(2)}x the limit (${units} against ${bound.limit}${where})${then}${rest}.`;
  }
  const fullest = `at most ${worst.worstWindowRatio.toFixed(2)}x${where}`;
  const wrong = rows.reduce((a, b) => (b.errorRate > a.errorRate ? b : a));
  const every = result.limits === undefined ? `the limit in every ${window} window` : 'every limit in all its windows';
  if (wrong.errorRate === 0)
    return `${result.name}: every algorithm stayed within ${every} (${fullest}) and decided exactly as the exact sliding log would.`;
  return `${result.name}: every algorithm stayed within ${every} (${fullest}); ${wrong.algorithm} differed most from the exact answer (${wrong.errorRate.toFixed(1)}% of requests, ${wrong.falseDenials} wrongly denied, ${wrong.falseAdmits} wrongly admitted).`;
}

/** `, key "attacker", up to 1s` (the window's end, since the run's start): where `row`'s worst window was, or '' when unknown. */
function worstWindowPlace(result: WorkloadComparison, row: ComparisonRow): string {
  const place = result.worstWindows[result.rows.indexOf(row)];
  if (!place) return '';
  return `, key "${place.key}", up to ${formatRunTime(place.endMs, runSpan(result).startMs)}`;
}

function list(names: string[]): string {
  if (names.length <= 1) return names.join('');
  return `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}
