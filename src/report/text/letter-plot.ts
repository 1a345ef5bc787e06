/**
 * A small terminal plot readable without colour: each point is a letter in a grid of
 * characters (a scatter, or a line chart's measured points), optional lines join a
 * series' points with dots, and the axes carry their tick labels and titles. Two letters
 * that fall in one cell sit side by side (the later one moves to the nearest free cell on
 * its row), so points that coincide still read, as `TG`.
 */

/** How an axis maps values to cells: evenly, or by powers of ten (positive values only). */
export type AxisScale = 'linear' | 'log';

export interface PlotAxis {
  /** The axis title: printed above the y axis, under the x axis's ticks. */
  label: string;
  scale: AxisScale;
  /** A tick label for a value on this axis (`1.2 KB`, `0.9x`, `12%`). */
  format(value: number): string;
  /** Bounds to draw, widened to hold every point; when absent, the points' own range (0 included on a linear axis). */
  min?: number;
  max?: number;
}

export interface PlotPoint {
  letter: string;
  x: number;
  y: number;
}

/** Points of one series joined by straight lines (in the axes' scales) of {@link LINE_GLYPH}, in the order given. */
export interface PlotLine {
  points: readonly { x: number; y: number }[];
}

export interface LetterPlotSpec {
  x: PlotAxis;
  y: PlotAxis;
  points: readonly PlotPoint[];
  lines?: readonly PlotLine[];
  /** Columns of the whole plot, labels included (at least 30). */
  width: number;
  /** Rows of the grid, axis and labels excluded (at least 3). */
  height: number;
}

/** The glyph of a line between points. */
export const LINE_GLYPH = '·';

/**
 * The plot as lines of at most `spec.width` columns: the y title, `spec.height` grid rows
 * (ticks at the top, middle and bottom), the x axis, its ticks (left, middle, right) and
 * its title. Values that cannot be drawn (NaN, or not positive on a log axis) are left out.
 */
export function letterPlot(spec: LetterPlotSpec): string[] {
  const width = Math.max(30, spec.width);
  const height = Math.max(3, spec.height);
  const points = spec.points.filter((p) => drawable(spec.x, p.x) && drawable(spec.y, p.y));
  const lines = (spec.lines ?? []).map((line) =>
    line.points.filter((p) => drawable(spec.x, p.x) && drawable(spec.y, p.y)),
  );
  const all = [...points, ...lines.flat()];
  const xRange = rangeOf(
    spec.x,
    all.map((p) => p.x),
  );
  const yRange = rangeOf(
    spec.y,
    all.map((p) => p.y),
  );
  const midRow = Math.round((height - 1) / 2);
  const yTicks = [0, midRow, height - 1].map((row) => spec.y.format(valueAt(spec.y, yRange, 1 - row / (height - 1))));
  const labelWidth = Math.max(...yTicks.map((t) => t.length));
  const columns = width - labelWidth - 2;
  const grid = Array.from({ length: height }, () => Array.from({ length: columns }, () => ' '));
  const cellOf = (p: { x: number; y: number }) => ({
    column: Math.round(position(spec.x, xRange, p.x) * (columns - 1)),
    row: height - 1 - Math.round(position(spec.y, yRange, p.y) * (height - 1)),
  });
  for (const line of lines) drawLine(grid, line.map(cellOf));
  placeLetters(
    grid,
    points.map((point) => ({ ...cellOf(point), letter: point.letter })),
  );
  const out = [spec.y.label];
  grid.forEach((cells, row) => {
    const tick = row === 0 ? yTicks[0] : row === height - 1 ? yTicks[2] : row === midRow ? yTicks[1] : '';
    out.push(`${(tick ?? '').padStart(labelWidth)} ${row === height - 1 ? '┼' : '┤'}${cells.join('')}`.trimEnd());
  });
  out.push(`${' '.repeat(labelWidth)} └${'─'.repeat(columns)}`);
  out.push(xTickLine(spec.x, xRange, labelWidth + 2, columns));
  out.push(spec.x.label.padStart(width));
  return out.map((line) => line.trimEnd());
}

function drawable(axis: PlotAxis, value: number): boolean {
  return Number.isFinite(value) && (axis.scale === 'linear' || value > 0);
}

interface Range {
  min: number;
  max: number;
}

/** The axis's bounds: as given, widened to every value; a linear axis starts at 0 unless a value is below it. */
function rangeOf(axis: PlotAxis, values: readonly number[]): Range {
  let min = axis.min ?? (axis.scale === 'linear' ? 0 : Infinity);
  let max = axis.max ?? -Infinity;
  for (const value of values) {
    min = Math.min(min, value);
    max = Math.max(max, value);
  }
  if (!Number.isFinite(min)) min = axis.scale === 'log' ? 1 : 0;
  if (!Number.isFinite(max) || max <= min) max = axis.scale === 'log' ? min * 10 : min + 1;
  return { min, max };
}

/** Where `value` lies between the range's ends, 0 to 1, in the axis's scale. */
function position(axis: PlotAxis, range: Range, value: number): number {
  if (axis.scale === 'log') return Math.log10(value / range.min) / Math.log10(range.max / range.min);
  return (value - range.min) / (range.max - range.min);
}

/** The value at `fraction` (0 to 1) of the way between the range's ends, in the axis's scale: the inverse of {@link position}. */
function valueAt(axis: PlotAxis, range: Range, fraction: number): number {
  if (axis.scale === 'log') return range.min * (range.max / range.min) ** fraction;
  return range.min + (range.max - range.min) * fraction;
}

/** Dots on the cells between each pair of consecutive cells (a cell per column or per row, whichever the segment spans more). */
function drawLine(grid: string[][], cells: readonly { column: number; row: number }[]): void {
  for (let i = 1; i < cells.length; i++) {
    const from = cells[i - 1] as { column: number; row: number };
    const to = cells[i] as { column: number; row: number };
    const steps = Math.max(Math.abs(to.column - from.column), Math.abs(to.row - from.row));
    for (let s = 0; s <= steps; s++) {
      const t = steps === 0 ? 0 : s / steps;
      const row = grid[Math.round(from.row + (to.row - from.row) * t)];
      const column = Math.round(from.column + (to.column - from.column) * t);
      if (row && row[column] === ' ') row[column] = LINE_GLYPH;
    }
  }
}

/**
 * `letter` at `cell`, or, when another letter holds it, at the nearest free cell to its
 * right (so letters that coincide read in the order given), else to its left, on its row
 * and then on the rows above and below.
 */
function placeLetter(grid: string[][], cell: { column: number; row: number }, letter: string): void {
  const columns = grid[0]?.length ?? 0;
  const order = [
    ...Array.from({ length: columns - cell.column }, (_, i) => cell.column + i),
    ...Array.from({ length: cell.column }, (_, i) => cell.column - 1 - i),
  ];
  for (const rowOffset of [0, -1, 1, -2, 2]) {
    const row = grid[cell.row + rowOffset];
    const column = row ? order.find((c) => !isLetter(row[c] as string)) : undefined;
    if (row && column !== undefined) {
      row[column] = letter;
      return;
    }
  }
}

/**
 * The letters of each cell side by side from it, in the order given, the run moved left as
 * far as it must to end inside the grid; see {@link placeLetter} for a cell already taken.
 */
function placeLetters(grid: string[][], placed: readonly { column: number; row: number; letter: string }[]): void {
  const columns = grid[0]?.length ?? 0;
  const groups = new Map<string, { column: number; row: number; letters: string[] }>();
  for (const { column, row, letter } of placed) {
    const id = `${row}:${column}`;
    const group = groups.get(id) ?? { column, row, letters: [] };
    group.letters.push(letter);
    groups.set(id, group);
  }
  for (const { column, row, letters } of groups.values()) {
    const start = Math.max(0, Math.min(column, columns - letters.length));
    letters.forEach((letter, i) => placeLetter(grid, { column: start + i, row }, letter));
  }
}

function isLetter(glyph: string): boolean {
  return glyph !== ' ' && glyph !== LINE_GLYPH;
}

/** The x ticks (left end, middle, right end) under the axis, starting `indent` columns in. */
function xTickLine(axis: PlotAxis, range: Range, indent: number, columns: number): string {
  const left = axis.format(range.min);
  const midColumn = Math.round((columns - 1) / 2);
  const mid = axis.format(valueAt(axis, range, midColumn / (columns - 1)));
  const right = axis.format(range.max);
  const line = Array.from({ length: indent + columns }, () => ' ');
  const put = (text: string, start: number) => {
    for (const [i, ch] of [...text].entries()) if (start + i >= 0 && start + i < line.length) line[start + i] = ch;
  };
  put(left, indent);
  const midStart = indent + midColumn - Math.floor(mid.length / 2);
  if (midStart > indent + left.length) put(mid, midStart);
  put(right, indent + columns - right.length);
  return line.join('');
}

/**
 * A distinct letter per name, in order: the first free initial of its words (`token-bucket`
 * T, `sliding-counter` after `sliding-log` C), else its first free letter, else a digit.
 */
export function lettersFor(names: readonly string[]): string[] {
  const taken = new Set<string>();
  return names.map((name) => {
    const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
    const candidates = [...words.map((w) => w[0] as string), ...name.replace(/[^A-Za-z0-9]/g, ''), ...'0123456789'];
    const letter = candidates.map((c) => c.toUpperCase()).find((c) => !taken.has(c)) ?? '?';
    taken.add(letter);
    return letter;
  });
}
