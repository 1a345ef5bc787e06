import type { WorkloadComparison } from '../sim/compare.js';
import { round } from './compare-csv.js';
import { JSON_FORMAT_VERSION, withErrorPercent } from './json-format.js';

/**
 * The JSON report (format {@link JSON_FORMAT_VERSION}): `rows` (one per workload x algorithm,
 * with the fields `scenario, algorithm, offered, admitted, denied, falseAdmits,
 * falseDenials, errorPercent, worstWindowRatio, fairness, bytesPerKey, opsPerSec` and a few
 * more; `labels`: per source label `{ label, offered, admitted, falseDenials, falseAdmits }`,
 * empty when no source has one), `scenarios` (name,
 * description, policy, the one-line summary, notes) and `timelines` (offered and admitted
 * units per bucket for each row). Measured figures not taken are null. `extra` adds
 * top-level sections (`ratelab attack` adds `attack`).
 */
export function comparisonJson(results: readonly WorkloadComparison[], summaries: readonly string[], extra: Record<string, unknown> = {}): string {
  const report = {
    version: JSON_FORMAT_VERSION,
    ...extra,
    scenarios: results.map((result, i) => ({ name: result.name, description: result.description, policy: result.policy, summary: summaries[i], notes: result.notes })),
    rows: results.flatMap((result) =>
      result.rows.map((row, j) => ({
        ...withErrorPercent(row),
        worstWindowRatio: round(row.worstWindowRatio, 6),
        fairness: row.fairness === null ? null : round(row.fairness, 6),
        bytesPerKey: row.bytesPerKey === null ? null : round(row.bytesPerKey, 1),
        opsPerSec: row.opsPerSec === null ? null : Math.round(row.opsPerSec),
        worstWindow: result.worstWindows[j] ?? null,
        labels: row.labels ?? [],
      })),
    ),
    timelines: results.flatMap((result) => result.timelines.map(({ algorithm, timeline }) => ({ scenario: result.name, algorithm, ...timeline }))),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}
