import { stringify } from 'csv-stringify/sync';
import type { WorkloadComparison } from '../sim/compare.js';

/**
 * The CSV columns, in order. Names are stable (scripts depend on them) and carry their
 * units: counts are requests; `error_rate_pct` is a percentage of offered requests;
 * `worst_window_ratio` is units / limit; bytes are per live key; `ops_per_sec` is
 * decisions per second. An empty cell means not measured / not defined.
 */
export const CSV_COLUMNS = [
  'scenario',
  'algorithm',
  'limit',
  'window_ms',
  'burst',
  'offered',
  'admitted',
  'denied',
  'false_admits',
  'false_denials',
  'error_rate_pct',
  'worst_window_ratio',
  'fairness_jain',
  'keys',
  'bytes_per_key',
  'state_bytes_per_key',
  'ops_per_sec',
] as const;

/** One row per (workload, algorithm), RFC 4180 (CRLF line ends, quoted where needed), with a header. */
export function comparisonCsv(results: readonly WorkloadComparison[]): string {
  const records = results.flatMap((result) =>
    result.rows.map((row) => [
      row.scenario,
      row.algorithm,
      result.policy.limit,
      result.policy.windowMs,
      result.policy.burst ?? '',
      row.offered,
      row.admitted,
      row.denied,
      row.falseAdmits,
      row.falseDenials,
      round(row.errorRate, 4),
      round(row.worstWindowRatio, 4),
      row.fairness === null ? '' : round(row.fairness, 4),
      row.keys,
      row.bytesPerKey === null ? '' : round(row.bytesPerKey, 1),
      row.stateBytesPerKey ?? '',
      row.opsPerSec === null ? '' : Math.round(row.opsPerSec),
    ]),
  );
  return stringify(records, { header: true, columns: [...CSV_COLUMNS], record_delimiter: '\r\n' });
}

/** Rounds for output: the figures are exact ratios of counts, printed to `digits` places. */
export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
