import type { ChalkInstance } from 'chalk';
import type { ComparisonRow, WorkloadComparison } from '../sim/compare.js';
import { formatDuration } from '../duration.js';
import { summarise } from './compare-summary.js';
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
 * ones in green), then any notes.
 */
export function renderComparison(result: WorkloadComparison, paint: ChalkInstance): string {
  const { limit, windowMs, burst } = result.policy;
  const policy = `${limit} per ${formatDuration(windowMs)}${burst === undefined ? '' : `, burst ${burst}`}`;
  const lines = [paint.bold(`${result.name}`) + paint.dim(` (${policy}): ${result.description}`), summarise(result), ''];
  const table = renderTable(COLUMNS, result.rows.map((row) => cells(row, paint)));
  const notes = result.notes.map((note) => paint.yellow(`note: ${note}`));
  return [...lines, table.trimEnd(), ...notes].join('\n') + '\n';
}

function cells(row: ComparisonRow, paint: ChalkInstance): string[] {
  const ratio = row.worstWindowRatio.toFixed(2) + 'x';
  return [
    row.algorithm,
    count(row.offered),
    count(row.admitted),
    count(row.denied),
    count(row.falseAdmits),
    count(row.falseDenials),
    row.errorRate.toFixed(2),
    row.worstWindowRatio > 1 + 1e-9 ? paint.red(ratio) : paint.green(ratio),
    row.fairness === null ? '-' : row.fairness.toFixed(3),
    row.bytesPerKey === null ? '-' : row.bytesPerKey.toFixed(0),
    row.stateBytesPerKey === null ? '-' : String(row.stateBytesPerKey),
    row.opsPerSec === null ? '-' : compact(row.opsPerSec),
  ];
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

/** 12345678 -> "12.3M": speed figures vary run to run, three digits say all they can. */
function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e8 ? 0 : 1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e5 ? 0 : 1)}k`;
  return n.toFixed(0);
}
