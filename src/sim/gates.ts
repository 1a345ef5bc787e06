import type { ComparisonRow } from './comparison.js';

/**
 * Bounds a CI run holds every (scenario, algorithm) row to. Both are optional: a gate that
 * is not given checks nothing.
 */
export interface Gates {
  /** Most admitted in any window `(t - W, t]` as a ratio of the limit, e.g. 1.0 (exact) or 2.0. */
  maxWorstWindow?: number;
  /** Most decisions that differ from the exact oracle's, in percent of requests (0 to 100). */
  maxErrorPercent?: number;
}

/** One row that broke a gate, with a sentence naming the row, the figure and the bound. */
export interface GateViolation {
  scenario: string;
  algorithm: string;
  gate: 'max-worst-window' | 'max-error';
  value: number;
  bound: number;
  message: string;
}

/**
 * The rows that break `gates`, in row order (a row breaking both gates appears twice).
 * Figures are compared as printed, to the precision of the report (worst window to 1e-9,
 * since it is whole units over the limit), so a row shown as `2.00x` passes a bound of 2.0.
 */
export function checkGates(rows: readonly ComparisonRow[], gates: Gates): GateViolation[] {
  const violations: GateViolation[] = [];
  for (const row of rows) {
    const { maxWorstWindow, maxErrorPercent } = gates;
    if (maxWorstWindow !== undefined && row.worstWindowRatio > maxWorstWindow + 1e-9) {
      violations.push(
        violation(
          row,
          'max-worst-window',
          row.worstWindowRatio,
          maxWorstWindow,
          `worst window ${row.worstWindowRatio.toFixed(2)}x the limit, above --max-worst-window ${maxWorstWindow}`,
        ),
      );
    }
    if (maxErrorPercent !== undefined && row.errorRate > maxErrorPercent + 1e-9) {
      violations.push(
        violation(
          row,
          'max-error',
          row.errorRate,
          maxErrorPercent,
          `error ${row.errorRate.toFixed(2)}% of requests, above --max-error ${maxErrorPercent}%`,
        ),
      );
    }
  }
  return violations;
}

function violation(
  row: ComparisonRow,
  gate: GateViolation['gate'],
  value: number,
  bound: number,
  why: string,
): GateViolation {
  return {
    scenario: row.scenario,
    algorithm: row.algorithm,
    gate,
    value,
    bound,
    message: `${row.scenario} / ${row.algorithm}: ${why}`,
  };
}
