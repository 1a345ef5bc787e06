import type { ChalkInstance } from 'chalk';
import type { ComparisonRow, WorkloadComparison } from '../sim/compare.js';
import { formatDuration } from '../duration.js';
import type { Policy } from '../policy.js';
import { summarise } from './compare-summary.js';
import { renderLabelBreakdown } from './label-breakdown.js';
import { renderTable, type Column } from './table.js';

const COLUMNS: Column[] = [
  { header: 'algorithm' },
  { header: 'offered', align: 'right' },
  { header: 'admitted', align: 'right' },
  { header: 'denied', align: 'right' },
  { header: 'false+', align: 'right' },
  { header: 'false-', align: 'right' },
  { header: 'error %', align: 'right' },
  { header: 'worst win', align: 'right' },
  { header: 'fairness', align: 'right' },
  { header: 'B/key', align: 'right' },
  { header: 'state B', align: 'right' },
  { header: 'decisions/s', align: 'right' },
];

/**
 * The terminal report of one workload: a title line with the policy, the plain sentence
 * of what it shows, then the table (worst-window ratios above the limit in red, exact
 * ones in green), the per-label breakdown when sources carry labels, then any notes.
 */
export function renderComparison(result: WorkloadComparison, paint: ChalkInstance): string {
  const lines = [paint.bold(`${result.name}`) + paint.dim(` (${describePolicy(result.policy)}): ${result.description}`), summarise(result), ''];
  const table = renderTable(COLUMNS, result.rows.map((row) => cells(row, paint)));
  const notes = result.notes.map((note) => paint.yellow(`note: ${note}`));
  const labels = renderLabelBreakdown(result.rows, paint);
  return [...lines, table.trimEnd(), ...(labels === '' ? [] : ['', labels.trimEnd()]), ...notes].join('\n') + '\n';
}

/** `100 per 1s` or `100 per 1s, burst 20`. */
export function describePolicy({ limit, windowMs, burst }: Policy): string {
  return `${limit} per ${formatDuration(windowMs)}${burst === undefined ? '' : `, burst ${burst}`}`;
}

/** A worst-window ratio as `1.25x`: red above the limit, green within it. */
export function worstWindowCell(ratio: number, paint: ChalkInstance): string {
  const text = ratio.toFixed(2) + 'x';
  return ratio > 1 + 1e-9 ? paint.red(text) : paint.green(text);
}

function cells(row: ComparisonRow, paint: ChalkInstance): string[] {
  return [
    row.algorithm,
    count(row.offered),
    count(row.admitted),
    count(row.denied),
    count(row.falseAdmits),
    count(row.falseDenials),
    row.errorRate.toFixed(2),
    worstWindowCell(row.worstWindowRatio, paint),
    row.fairness === null ? '-' : row.fairness.toFixed(3),
    row.bytesPerKey === null ? '-' : row.bytesPerKey.toFixed(0),
    row.stateBytesPerKey === null ? '-' : String(row.stateBytesPerKey),
    row.opsPerSec === null ? '-' : compact(row.opsPerSec),
  ];
}

/** A count with thousands separators: 4,818. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** 12345678 -> "12.3M": speed figures vary run to run, three digits say all they can. */
function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e5 ? 0 : 1)}k`;
  return n.toFixed(0);
}
