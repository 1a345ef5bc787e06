import type { ChalkInstance } from 'chalk';
import type { ComparisonRow } from '../sim/comparison.js';
import { count, renderTable, type Column } from './table.js';

const COLUMNS: Column[] = [
  { header: 'label' },
  { header: 'algorithm' },
  { header: 'offered', align: 'right' },
  { header: 'admitted', align: 'right' },
  { header: 'false-', align: 'right' },
  { header: 'false+', align: 'right' },
];

/**
 * The per-label breakdown of a workload's rows: for each source label, each algorithm's
 * offered, admitted, false denials (requests the exact limit admits but the algorithm
 * denied: legitimate users wrongly turned away) and false admits (requests let through
 * over the limit), in yellow and red when not zero. Empty when no source has a label.
 */
export function renderLabelBreakdown(rows: readonly ComparisonRow[], paint: ChalkInstance): string {
  const labels = [...new Set(rows.flatMap((row) => (row.labels ?? []).map((l) => l.label)))];
  if (labels.length === 0) return '';
  const cells = labels.flatMap((label) =>
    rows.map((row, i) => {
      const counts = row.labels?.find((l) => l.label === label);
      if (counts === undefined) return [i === 0 ? label : '', row.algorithm, '-', '-', '-', '-'];
      return [i === 0 ? label : '', row.algorithm, count(counts.offered), count(counts.admitted), flagged(counts.falseDenials, paint.yellow), flagged(counts.falseAdmits, paint.red)];
    }),
  );
  const title = paint.dim('per label: false- = denied though within the limit, false+ = admitted over it');
  return `${title}\n${renderTable(COLUMNS, cells)}`;
}

function flagged(n: number, paint: (text: string) => string): string {
  return n === 0 ? '0' : paint(count(n));
}
