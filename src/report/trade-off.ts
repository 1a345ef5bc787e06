import { median } from 'simple-statistics';
import type { ComparisonRow, WorkloadComparison } from '../sim/comparison.js';

/**
 * What one contender (algorithm or module) gets wrong against what it costs, summarised over
 * the workloads it ran on: the figures the bars and the trade-off scatter draw, and the
 * matrix's median rows print. Each median is over the workloads where the figure exists.
 */
export interface ContenderCosts {
  contender: string;
  /** Workloads the contender ran on. */
  workloads: number;
  /** Median over the workloads of the error % of requests against the exact oracle, 0-100. */
  errorPercent: number;
  /** Median over the workloads of the worst window / limit (1 or less for an exact limiter). */
  worstWindowRatio: number;
  /** Median measured heap bytes per live key; null when never measured (`--no-measure`). */
  bytesPerKey: number | null;
  /** Median speed as a ratio to the reference measured in the same rounds (above 1: faster); null when never measured. */
  speedRatio: number | null;
}

/** One (contender, workload) point of the trade-off: a row's figures, for the HTML scatter. */
export interface TradeOffPoint {
  contender: string;
  scenario: string;
  /** Error % of requests against the exact oracle, 0-100. */
  errorPercent: number;
  worstWindowRatio: number;
  bytesPerKey: number | null;
  speedRatio: number | null;
}

/** The contenders of `results` in order of first appearance. */
export function contendersOf(results: readonly WorkloadComparison[]): string[] {
  return [...new Set(results.flatMap((result) => result.rows.map((row) => row.algorithm)))];
}

/** Per contender (in order of first appearance), its medians over the workloads of `results`. */
export function contenderCosts(results: readonly WorkloadComparison[]): ContenderCosts[] {
  return contendersOf(results).map((contender) => {
    const rows = results.flatMap((result) => result.rows.filter((row) => row.algorithm === contender));
    return {
      contender,
      workloads: rows.length,
      errorPercent: median(rows.map((row) => row.errorRate)),
      worstWindowRatio: median(rows.map((row) => row.worstWindowRatio)),
      bytesPerKey: medianOf(rows, (row) => row.bytesPerKey),
      speedRatio: medianOf(rows, (row) => row.speedRatio),
    };
  });
}

/** Every (contender, workload) row of `results` as a point, in row order. */
export function tradeOffPoints(results: readonly WorkloadComparison[]): TradeOffPoint[] {
  return results.flatMap((result) =>
    result.rows.map((row) => ({
      contender: row.algorithm,
      scenario: result.name,
      errorPercent: row.errorRate,
      worstWindowRatio: row.worstWindowRatio,
      bytesPerKey: row.bytesPerKey,
      speedRatio: row.speedRatio,
    })),
  );
}

/** The median of the figures `value` gives for `rows`, skipping nulls; null when none has one. */
export function medianOf(rows: readonly ComparisonRow[], value: (row: ComparisonRow) => number | null): number | null {
  const values = rows.map(value).filter((v): v is number => v !== null);
  return values.length === 0 ? null : median(values);
}
