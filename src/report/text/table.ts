import stripAnsi from './strip-ansi.js';
import { largest } from '../../metrics/largest.js';

/** A column of a text table: its header and which side its cells align to. */
export interface Column {
  header: string;
  align?: 'left' | 'right';
}

/**
 * Renders rows as an aligned plain-text table with a header and a rule. Cells may carry
 * ANSI colour; widths are measured without it.
 */
export function renderTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, i) =>
    largest(
      rows.map((row) => visible(row[i] ?? '')),
      visible(column.header),
    ),
  );
  const line = (cells: readonly string[]) =>
    columns
      .map((column, i) => pad(cells[i] ?? '', widths[i] as number, column.align ?? 'left'))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(columns.map((c) => c.header)), rule, ...rows.map(line)].join('\n') + '\n';
}

/** Right-aligned columns (figures), one per header, in order. */
export function rightAligned(...headers: readonly string[]): Column[] {
  return headers.map((header) => ({ header, align: 'right' }));
}

/** Whether every line (ANSI colour aside) is at most `width` columns. */
export function fits(lines: readonly string[], width: number): boolean {
  return lines.every((line) => visible(line) <= width);
}

function visible(text: string): number {
  return stripAnsi(text).length;
}

function pad(text: string, width: number, align: 'left' | 'right'): string {
  const gap = ' '.repeat(Math.max(0, width - visible(text)));
  return align === 'right' ? gap + text : text + gap;
}

/** A count with thousands separators: 4,818. */
export function count(n: number): string {
  return n.toLocaleString('en-US');
}
