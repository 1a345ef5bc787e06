import type { ChalkInstance } from 'chalk';
import type { ComparisonRow, WorkloadComparison } from '../../sim/comparison.js';
import { formatDuration } from '../../core/duration.js';
import type { Policy } from '../../core/policy.js';
import { summarise } from './compare-summary.js';
import { renderLabelBreakdown } from './label-breakdown.js';
import { count, fits, renderTable, type Column } from './table.js';
import { wrapWords } from './wrap.js';

/** Widest line of a report, columns: tables and sentences never run past this. */
export const MAX_WIDTH = 100;

/** Marks a worst window above the limit, so it stands out without colour too. */
export const OVER_MARK = '▲';

/** A column of the comparison table; a cell is null where the figure was not taken. */
interface RowColumn extends Column {
  /** The accuracy columns come first; the cost ones (memory, speed) go in a second table when one would be too wide. */
  group: 'accuracy' | 'cost';
  cell(row: ComparisonRow, paint: ChalkInstance): string | null;
}

const COLUMNS: RowColumn[] = [
  { header: 'offered', align: 'right', group: 'accuracy', cell: (row) => count(row.offered) },
  { header: 'admitted', align: 'right', group: 'accuracy', cell: (row) => count(row.admitted) },
  { header: 'denied', align: 'right', group: 'accuracy', cell: (row) => count(row.denied) },
  { header: 'false+', align: 'right', group: 'accuracy', cell: (row) => count(row.falseAdmits) },
  { header: 'false-', align: 'right', group: 'accuracy', cell: (row) => count(row.falseDenials) },
  { header: 'error %', align: 'right', group: 'accuracy', cell: (row) => row.errorRate.toFixed(2) },
  {
    header: 'worst win',
    align: 'right',
    group: 'accuracy',
    cell: (row, paint) => worstWindowCell(row.worstWindowRatio, paint),
  },
  {
    header: 'fairness',
    align: 'right',
    group: 'accuracy',
    cell: (row) => (row.fairness === null ? null : row.fairness.toFixed(3)),
  },
  {
    header: 'B/key',
    align: 'right',
    group: 'cost',
    cell: (row) => (row.bytesPerKey === null ? null : row.bytesPerKey.toFixed(0)),
  },
  {
    header: 'state B',
    align: 'right',
    group: 'cost',
    cell: (row) => (row.stateBytesPerKey === null ? null : String(row.stateBytesPerKey)),
  },
  {
    header: 'decisions/s',
    align: 'right',
    group: 'cost',
    cell: (row) => (row.opsPerSec === null ? null : compact(row.opsPerSec)),
  },
  {
    header: 'x ref',
    align: 'right',
    group: 'cost',
    cell: (row) => (row.speedRatio === null ? null : speedRatioCell(row.speedRatio)),
  },
];

/** Said under a table that shows both speed figures, so the reader knows which one ranks. */
const SPEED_NOTE =
  "x ref: decisions/s as a ratio to a reference measured in the same rounds; rank by it (the raw decisions/s move with the machine's load).";

/** Said under a table with watched limits. */
const WATCHED_NOTE = "worst NAME*: the scenario's own limits, measured but not enforced in this run.";

/**
 * The terminal report of one workload: a title line with the policy, the plain sentence
 * of what it shows, then the table (worst-window ratios above the limit marked and in
 * red, the rest in green), the per-label breakdown when sources carry labels, then any
 * notes. Columns with no figure in any row are left
 * out; when the table would be wider than `width` (at most {@link MAX_WIDTH}) columns, the
 * memory and speed columns go in a second table below.
 */
export function renderComparison(result: WorkloadComparison, paint: ChalkInstance, width = MAX_WIDTH): string {
  const fit = Math.min(width, MAX_WIDTH);
  const title = wrapWords(`${result.name} (${describeLimits(result)}): ${result.description}`, fit, '  ');
  const lines = [
    paint.bold(title[0] as string),
    ...title.slice(1).map((line) => paint.dim(line)),
    ...wrapWords(summarise(result), fit, '  '),
    '',
  ];
  const notes = result.notes.flatMap((note) => wrapWords(`note: ${note}`, fit, '  ').map((line) => paint.yellow(line)));
  const labels = renderLabelBreakdown(result.rows, paint, fit);
  return (
    [
      ...lines,
      ...comparisonTables(result.rows, paint, fit),
      ...(labels === '' ? [] : ['', labels.trimEnd()]),
      ...notes,
    ].join('\n') + '\n'
  );
}

/**
 * The table as lines, or, when it is wider than `width`, two: the accuracy columns (as
 * many as fit) and the rest (memory and speed); then the speed note when it applies.
 */
function comparisonTables(rows: readonly ComparisonRow[], paint: ChalkInstance, width: number): string[] {
  const shown = withLimitColumns(rows).filter((column) => rows.some((row) => column.cell(row, paint) !== null));
  let tables = table(shown, rows, paint);
  if (!fits(tables, width)) {
    let split = shown.filter((column) => column.group === 'accuracy').length;
    while (split > 1 && !fits(table(shown.slice(0, split), rows, paint), width)) split--;
    tables = [...table(shown.slice(0, split), rows, paint), '', ...table(shown.slice(split), rows, paint)];
  }
  const speed = shown.some((column) => column.header === 'x ref')
    ? wrapWords(SPEED_NOTE, width, '  ').map((line) => paint.dim(line))
    : [];
  const watched = rows[0]?.limits?.some((limit) => limit.watched)
    ? wrapWords(WATCHED_NOTE, width, '  ').map((line) => paint.dim(line))
    : [];
  return [...tables, ...speed, ...watched];
}

function table(columns: readonly RowColumn[], rows: readonly ComparisonRow[], paint: ChalkInstance): string[] {
  const cells = rows.map((row) => [row.algorithm, ...columns.map((column) => column.cell(row, paint) ?? '-')]);
  return renderTable([{ header: 'algorithm' }, ...columns], cells)
    .trimEnd()
    .split('\n');
}

/**
 * The columns, with one `worst NAME` column per limit after `worst win` when the rows carry
 * per-limit figures (a composite, or watched limits; a watched one's header ends in `*`).
 */
function withLimitColumns(rows: readonly ComparisonRow[]): RowColumn[] {
  const limits = rows[0]?.limits ?? [];
  if (limits.length === 0) return COLUMNS;
  const perLimit = limits.map((limit, i): RowColumn => ({
    header: `worst ${limit.name}${limit.watched ? '*' : ''}`,
    align: 'right',
    group: 'accuracy',
    cell: (row, paint) => {
      const ratio = row.limits?.[i]?.ratio;
      return ratio === undefined ? null : worstWindowCell(ratio, paint);
    },
  }));
  const at = COLUMNS.findIndex((column) => column.header === 'worst win') + 1;
  return [...COLUMNS.slice(0, at), ...perLimit, ...COLUMNS.slice(at)];
}

/**
 * The policy of a workload: `100 per 1s` for one, `20 per 1s and 1000 per 1h` for a
 * composite, then `(watching 20 per 1s)` for limits only measured.
 */
export function describeLimits(result: {
  policy: Policy;
  limits?: readonly Policy[];
  watched?: readonly Policy[];
}): string {
  const enforced = (result.limits ?? [result.policy]).map(describePolicy).join(' and ');
  const watched = result.watched ?? [];
  return watched.length === 0 ? enforced : `${enforced}; watching ${watched.map(describePolicy).join(' and ')}`;
}

/** `100 per 1s` or `100 per 1s, burst 20`. */
export function describePolicy({ limit, windowMs, burst }: Policy): string {
  return `${limit} per ${formatDuration(windowMs)}${burst === undefined ? '' : `, burst ${burst}`}`;
}

/**
 * A worst-window ratio as `1.25x▲` (marked and red above the limit) or `1.00x ` (green
 * within it; the space keeps the decimal points of a right-aligned column in line).
 */
export function worstWindowCell(ratio: number, paint: ChalkInstance): string {
  const text = ratio.toFixed(2) + 'x';
  return ratio > 1 + 1e-9 ? paint.red(text + OVER_MARK) : paint.green(text) + ' ';
}

/** A speed ratio to the reference as `0.36x`. */
export function speedRatioCell(ratio: number): string {
  return `${ratio.toFixed(2)}x`;
}

/** 12345678 -> "12.3M": speed figures vary run to run, three digits say all they can. */
function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e5 ? 0 : 1)}k`;
  return n.toFixed(0);
}
