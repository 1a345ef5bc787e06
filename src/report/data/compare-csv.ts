import { stringify } from 'csv-stringify/sync';
import { roundToPlaces } from '../round.js';
import { ACCURACY_CSV_COLUMNS, accuracyCells } from '../accuracy-cells.js';
import type { LabelMetrics } from '../../metrics/label-counts.js';
import type { LimitWorstWindow } from '../../metrics/recorder.js';
import type { WorkloadComparison } from '../../sim/comparison.js';

/**
 * The CSV columns, in order. Names are stable (scripts depend on them) and carry their
 * units: counts are requests; `error_percent` is a percentage of offered requests;
 * `worst_window_ratio` is units / limit; bytes are per live key; `ops_per_sec` is
 * decisions per second and `speed_ratio` the same as a ratio to a reference timed in the
 * same rounds (the figure to rank by); `labels` holds each source label's counts as
 * `label=offered/admitted/false_denials/false_admits`, `;`-separated (labels are letters,
 * digits, `.`, `-` and `_`, so the cell splits without quoting). An empty cell means not
 * measured / not defined (no labels).
 */
export const CSV_COLUMNS = [
  'scenario',
  'algorithm',
  'limit',
  'window_ms',
  'burst',
  ...ACCURACY_CSV_COLUMNS,
  'fairness_jain',
  'keys',
  'bytes_per_key',
  'state_bytes_per_key',
  'ops_per_sec',
  'speed_ratio',
  'labels',
] as const;

/**
 * The column added, last, when a row has per-limit figures (a composite, or watched limits):
 * per limit `name=limit/window_ms/worst_window_ratio`, `;`-separated, a watched one's name
 * ending in `*` (`1s=20/1000/1;1h=1000/3600000/0.999`). The `limit`, `window_ms` and `burst`
 * cells of a composite are its first limit's.
 */
export const LIMITS_CSV_COLUMN = 'limit_worst_windows';

/** One row per (workload, algorithm), RFC 4180 (CRLF line ends, quoted where needed), with a header. */
export function comparisonCsv(results: readonly WorkloadComparison[]): string {
  const perLimit = results.some((result) => result.rows.some((row) => row.limits !== undefined));
  const records = results.flatMap((result) =>
    result.rows.map((row) => [
      row.scenario,
      row.algorithm,
      result.policy.limit,
      result.policy.windowMs,
      result.policy.burst ?? '',
      ...accuracyCells(row, 4),
      row.fairness === null ? '' : roundToPlaces(row.fairness, 4),
      row.keys,
      row.bytesPerKey === null ? '' : roundToPlaces(row.bytesPerKey, 1),
      row.stateBytesPerKey ?? '',
      row.opsPerSec === null ? '' : Math.round(row.opsPerSec),
      row.speedRatio === null ? '' : roundToPlaces(row.speedRatio, 3),
      labelsCell(row.labels ?? []),
      ...(perLimit ? [limitsCell(row.limits ?? [])] : []),
    ]),
  );
  const columns = perLimit ? [...CSV_COLUMNS, LIMITS_CSV_COLUMN] : [...CSV_COLUMNS];
  return stringify(records, { header: true, columns, record_delimiter: '\r\n' });
}

/** The {@link LIMITS_CSV_COLUMN} cell, empty for a row of one limit. */
function limitsCell(limits: readonly LimitWorstWindow[]): string {
  return limits
    .map((l) => `${l.name}${l.watched ? '*' : ''}=${l.limit}/${l.windowMs}/${roundToPlaces(l.ratio, 4)}`)
    .join(';');
}

/** The `labels` cell: `user=50/50/0/0;attacker=200/100/0/100`, empty without labels. */
function labelsCell(labels: readonly LabelMetrics[]): string {
  return labels.map((l) => `${l.label}=${l.offered}/${l.admitted}/${l.falseDenials}/${l.falseAdmits}`).join(';');
}
