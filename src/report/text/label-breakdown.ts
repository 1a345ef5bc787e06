import type { ChalkInstance } from 'chalk';
import type { ComparisonRow } from '../../sim/comparison.js';
import { formatDuration } from '../../core/duration.js';
import type { LabelMetrics } from '../../metrics/label-counts.js';
import { count, fits, renderTable, rightAligned, type Column } from './table.js';
import { wrapWords } from './wrap.js';

const COLUMNS: Column[] = [
  { header: 'label' },
  { header: 'algorithm' },
  ...rightAligned('offered', 'admitted', 'false-', 'false+'),
];

/** Added when some label knows how long its requests waited and which client sent each (retry clients). */
const WAIT_COLUMNS: Column[] = rightAligned('wait p50', 'wait p99', 'fairness');

/**
 * The per-label breakdown of a workload's rows: for each source label, each algorithm's
 * offered, admitted, false denials (requests the exact limit admits but the algorithm
 * denied: legitimate users wrongly turned away) and false admits (requests let through
 * over the limit), in yellow and red when not zero; with retry clients, how long their
 * admitted requests waited since first wanted (median, 99th percentile) and how evenly the
 * label's clients were admitted (Jain's index over each client's admissions). Empty when no
 * source has a label. The legend is wrapped to `width` columns.
 */
export function renderLabelBreakdown(rows: readonly ComparisonRow[], paint: ChalkInstance, width = Infinity): string {
  const labels = [...new Set(rows.flatMap((row) => (row.labels ?? []).map((l) => l.label)))];
  if (labels.length === 0) return '';
  const withWaits = rows.some((row) => row.labels?.some((l) => l.wait !== undefined));
  const counted = labels.flatMap((label) =>
    rows.map((row, i) => {
      const counts = row.labels?.find((l) => l.label === label);
      const cells =
        counts === undefined
          ? ['-', '-', '-', '-']
          : [
              count(counts.offered),
              count(counts.admitted),
              flagged(counts.falseDenials, paint.yellow),
              flagged(counts.falseAdmits, paint.red),
            ];
      return { who: [i === 0 ? label : '', row.algorithm], cells, waits: waitCells(counts) };
    }),
  );
  const legend = `per label: false- = denied though within the limit, false+ = admitted over it${withWaits ? "; wait = from wanting to send to admitted; fairness = Jain's index over the clients' admissions (1: all alike)" : ''}`;
  const title = wrapWords(legend, width, '  ')
    .map((line) => paint.dim(line))
    .join('\n');
  const counts = (waits: boolean) =>
    renderTable(
      waits ? [...COLUMNS, ...WAIT_COLUMNS] : COLUMNS,
      counted.map((r) => [...r.who, ...r.cells, ...(waits ? r.waits : [])]),
    );
  if (!withWaits) return `${title}\n${counts(false)}`;
  const together = counts(true);
  if (fits(together.split('\n'), width)) return `${title}\n${together}`;
  // Too wide for the terminal: the waits go in a table of their own below, as the
  // comparison table moves its memory and speed columns.
  const waits = renderTable(
    [...COLUMNS.slice(0, 2), ...WAIT_COLUMNS],
    counted.map((r) => [...r.who, ...r.waits]),
  );
  return `${title}\n${counts(false)}\n${waits}`;
}

function waitCells(counts: LabelMetrics | undefined): string[] {
  const wait = counts?.wait;
  const waits = wait === undefined ? ['-', '-'] : [formatDuration(wait.p50), formatDuration(wait.p99)];
  const fairness = counts?.fairness;
  return [...waits, fairness === undefined || fairness === null ? '-' : fairness.toFixed(3)];
}

function flagged(n: number, paint: (text: string) => string): string {
  return n === 0 ? '0' : paint(count(n));
}
