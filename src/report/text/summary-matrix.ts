import type { ChalkInstance } from 'chalk';
import type { ComparisonRow, WorkloadComparison } from '../../sim/comparison.js';
import { MAX_WIDTH, OVER_MARK, speedRatioCell, worstWindowCell } from './compare-table.js';
import { contendersOf, medianOf } from '../trade-off.js';
import { fits, renderTable, rightAligned, type Column } from './table.js';
import { wrapWords } from './wrap.js';

/** The legend under the matrix: what a cell holds and what the mark means. */
export const MATRIX_LEGEND = `cell: worst window / limit (${OVER_MARK} above it) and error % vs the exact sliding log`;

/** A figure summarised over the workloads for each contender, as a labelled row under the matrix. */
interface CostRow {
  label: string;
  /** What the row's figure is, said under the matrix when the row is shown. */
  legend: string;
  value(row: ComparisonRow): number | null;
  format(value: number): string;
}

const COST_ROWS: CostRow[] = [
  {
    label: 'B/key (median)',
    legend: 'B/key: heap bytes per key',
    value: (row) => row.bytesPerKey,
    format: (value) => value.toFixed(0),
  },
  {
    label: 'speed x ref (median)',
    legend: "x ref: speed over a reference's in the same rounds",
    value: (row) => row.speedRatio,
    format: speedRatioCell,
  },
];

/**
 * The summary closing a run of several workloads: a row per workload, a column per
 * contender (algorithm or module, in order of appearance), each cell the worst-window
 * ratio (marked {@link OVER_MARK} and red above the limit, green within it) and the error
 * % of requests; then, when they were measured, a row of median bytes per key and one of
 * median speed ratio per contender; then the legend. When the matrix is wider than
 * `width` columns (at most {@link MAX_WIDTH}), the contenders are split over as few blocks,
 * each repeating the workload column, as it takes to fit.
 */
export function renderSummaryMatrix(
  results: readonly WorkloadComparison[],
  paint: ChalkInstance,
  width = MAX_WIDTH,
): string {
  const fit = Math.min(width, MAX_WIDTH);
  const contenders = contendersOf(results);
  const costs = COST_ROWS.filter((cost) =>
    results.some((result) => result.rows.some((row) => cost.value(row) !== null)),
  );
  let lines: string[] = [];
  for (let blocks = 1; blocks <= Math.max(1, contenders.length); blocks++) {
    lines = split(contenders, blocks).flatMap((group, i) => [
      ...(i > 0 ? [''] : []),
      ...matrix(results, group, costs, paint),
    ]);
    if (fits(lines, fit)) break;
  }
  const legend = [MATRIX_LEGEND, ...(costs.length > 0 ? [costs.map((cost) => cost.legend).join('; ')] : [])].flatMap(
    (text) => wrapWords(text, fit, '  '),
  );
  return [...lines, ...legend.map((line) => paint.dim(line))].join('\n') + '\n';
}

function matrix(
  results: readonly WorkloadComparison[],
  contenders: readonly string[],
  costs: readonly CostRow[],
  paint: ChalkInstance,
): string[] {
  const columns: Column[] = [{ header: 'scenario' }, ...rightAligned(...contenders)];
  const rows = results.map((result) => [
    result.name,
    ...contenders.map((name) =>
      cell(
        result.rows.find((row) => row.algorithm === name),
        paint,
      ),
    ),
  ]);
  const summaries = costs.map((cost) => [cost.label, ...contenders.map((name) => costCell(results, name, cost))]);
  const table = renderTable(columns, summaries.length > 0 ? [...rows, [], ...summaries] : rows);
  return table.trimEnd().split('\n');
}

/** `2.00x▲ 50.0%`: the worst-window ratio and the error %; `-` where the contender did not run. */
function cell(row: ComparisonRow | undefined, paint: ChalkInstance): string {
  if (!row) return '-';
  return `${worstWindowCell(row.worstWindowRatio, paint)} ${`${row.errorRate.toFixed(1)}%`.padStart(5)}`;
}

function costCell(results: readonly WorkloadComparison[], name: string, cost: CostRow): string {
  const rows = results.flatMap((result) => result.rows.filter((row) => row.algorithm === name));
  const value = medianOf(rows, cost.value);
  return value === null ? '-' : cost.format(value);
}

/** `items` in `count` consecutive groups whose sizes differ by at most one. */
function split<T>(items: readonly T[], count: number): T[][] {
  const groups: T[][] = [];
  let start = 0;
  for (let i = 0; i < count; i++) {
    const size = Math.ceil((items.length - start) / (count - i));
    groups.push(items.slice(start, start + size));
    start += size;
  }
  return groups.filter((group) => group.length > 0);
}
