import { wrapWords } from './wrap.js';

/** A column of a wrapped table: its header, and whether its cells may wrap onto more lines. */
export interface WrappedColumn {
  header: string;
  wrap?: boolean;
}

/** Colours one line of a cell (plain text in, text with ANSI codes out); `row` -1 is the header. */
export type CellPaint = (text: string, row: number, column: number) => string;

const GAP = 2;

/**
 * A plain-text table of at most `width` columns: the columns that may wrap share what the
 * others leave, each as wide as it needs up to its share, and their cells wrap at words
 * (a word longer than its column is cut at the column's width). Cells are
 * plain text; `paint` colours each line of a cell after the layout, so widths ignore ANSI.
 */
export function renderWrappedTable(
  columns: readonly WrappedColumn[],
  rows: readonly (readonly string[])[],
  width: number,
  paint: CellPaint = (text) => text,
): string {
  const widths = columnWidths(columns, rows, width);
  const line = (cells: readonly string[], row: number) => {
    const wrapped = cells.map((cell, i) => (columns[i]?.wrap === true ? wrapCell(cell, widths[i] as number) : [cell]));
    const height = Math.max(...wrapped.map((cell) => cell.length));
    const lines: string[] = [];
    for (let l = 0; l < height; l += 1) {
      const parts = wrapped.map((cell, i) => {
        const text = cell[l] ?? '';
        return paint(text, row, i) + ' '.repeat(Math.max(0, (widths[i] as number) - text.length));
      });
      lines.push(parts.join(' '.repeat(GAP)).trimEnd());
    }
    return lines.join('\n');
  };
  const rule = widths.map((w) => '-'.repeat(w)).join(' '.repeat(GAP));
  const header = line(
    columns.map((column) => column.header),
    -1,
  );
  return [header, rule, ...rows.map(line)].join('\n') + '\n';
}

/**
 * A cell's lines: wrapped at words, and a word longer than the column (a response body, a
 * header's value) cut into pieces of its width, so the table keeps to the terminal.
 */
function wrapCell(text: string, width: number): string[] {
  const words = text.split(/\s+/).flatMap((word) => {
    const pieces: string[] = [];
    for (let at = 0; at < word.length; at += width) pieces.push(word.slice(at, at + width));
    return pieces;
  });
  return wrapWords(words.join(' '), width);
}

/** Each column's width: its widest cell, the wrapping columns cut down to share what is left of `width`. */
function columnWidths(
  columns: readonly WrappedColumn[],
  rows: readonly (readonly string[])[],
  width: number,
): number[] {
  const natural = columns.map((column, i) =>
    Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)),
  );
  const wrapping = columns.flatMap((column, i) => (column.wrap === true ? [i] : []));
  const fixed = natural.reduce((sum, w, i) => (wrapping.includes(i) ? sum : sum + w), 0);
  let left = width - fixed - GAP * (columns.length - 1);
  const widths = [...natural];
  // Water-filling: the narrowest wrapping columns take what they need first, the rest share
  // the remainder; none narrower than its header.
  const byNeed = [...wrapping].sort((a, b) => (natural[a] as number) - (natural[b] as number));
  const least = (column: number) => columns[column]?.header.length ?? 0;
  byNeed.forEach((column, i) => {
    const later = byNeed.slice(i + 1).reduce((sum, next) => sum + least(next), 0);
    const share = Math.min(Math.floor(left / (byNeed.length - i)), left - later);
    widths[column] = Math.max(least(column), Math.min(natural[column] as number, share));
    left -= widths[column] as number;
  });
  return widths;
}
