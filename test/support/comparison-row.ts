// A comparison row with the figures a report test cares about, the rest as a plain run of
// 800 offered and 400 admitted on one key, nothing measured.
import type { ComparisonRow } from '../../src/sim/comparison.js';

export function comparisonRow(
  algorithm: string,
  worstWindowRatio: number,
  errorRate: number,
  more: Partial<ComparisonRow> = {},
): ComparisonRow {
  return {
    scenario: 's',
    algorithm,
    offered: 800,
    admitted: 400,
    denied: 400,
    falseAdmits: 0,
    falseDenials: 0,
    errorRate,
    worstWindowRatio,
    fairness: null,
    bytesPerKey: null,
    stateBytesPerKey: null,
    opsPerSec: null,
    speedRatio: null,
    keys: 1,
    ...more,
  };
}
