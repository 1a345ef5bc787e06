import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import { largest } from '../../metrics/largest.js';
import {
  FLAT_SLOPE,
  SWEEP_BUDGET_BYTES,
  type MemorySweep,
  type SweepRow,
  type SweepSlope,
} from '../../metrics/memory-sweep.js';
import { roundToSignificant } from '../round.js';
import { letterPlot, lettersFor } from './letter-plot.js';
import { count, fits, renderTable, rightAligned } from './table.js';
import { wrapWords } from './wrap.js';

/** Rows of the plot's grid: enough to tell a flat line from one rising three decades. */
const PLOT_HEIGHT = 12;
/** The plot's width at most: wider only stretches the same points. */
const PLOT_WIDTH = 78;

/**
 * `compare --sweep-limit` in the terminal, within `width` columns and readable without
 * colour: a title, a log-log letter plot of bytes per full key against the limit (a letter
 * per measured point, dots joining each algorithm's points), a legend giving each
 * algorithm's letter, slope and growth in words, and the table of every figure (algorithm
 * x limit, split into blocks of limits when they do not fit side by side). `chart` false
 * (--no-chart) leaves the plot out.
 */
export function renderMemorySweep(sweep: MemorySweep, paint: ChalkInstance, width: number, chart = true): string {
  const algorithms = sweep.slopes.map((slope) => slope.algorithm);
  const letters = lettersFor(algorithms);
  const rowsOf = (algorithm: string) => sweep.rows.filter((row) => row.algorithm === algorithm);
  const plot = letterPlot({
    x: {
      label: 'limit (units per window, log scale)',
      scale: 'log',
      format: (limit) => count(roundToSignificant(limit, 2)),
    },
    y: { label: 'bytes per full key (log scale)', scale: 'log', format: bytesText },
    points: sweep.rows.map((row) => ({
      letter: letters[algorithms.indexOf(row.algorithm)] as string,
      x: row.limit,
      y: row.bytesPerKey,
    })),
    lines: algorithms.map((algorithm) => ({
      points: rowsOf(algorithm).map((row) => ({ x: row.limit, y: row.bytesPerKey })),
    })),
    width: Math.min(width, PLOT_WIDTH),
    height: PLOT_HEIGHT,
  });
  const legend = sweep.slopes.map((slope, i) => legendLine(letters[i] as string, slope, algorithms, width));
  return [
    ...wrapWords(title(sweep), width).map((line) => paint.bold(line)),
    '',
    ...(chart ? [...plot, ''] : []),
    ...legend,
    '',
    ...figureTables(sweep, algorithms, width),
    ...wrapWords(keysNote(sweep.rows), width).map((line) => paint.dim(line)),
  ].join('\n');
}

/** `40 B`, `8.1 kB`, `82 kB`, `8.4 MB`: a byte count in three significant figures at most (1 kB = 1,000 B). */
export function bytesText(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB'];
  let value = bytes;
  let unit = 0;
  while (Math.abs(value) >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 || Math.abs(value) >= 10 ? 0 : 1;
  return `${value.toFixed(digits)} ${units[unit]}`;
}

/** `~8.0 B/unit`, `~0 B/unit` for a flat slope, `-` for none (a single limit). */
export function slopeText(slope: SweepSlope): string {
  if (slope.bytesPerUnit === null) return '-';
  return Math.abs(slope.bytesPerUnit) < FLAT_SLOPE ? '~0 B/unit' : `~${slope.bytesPerUnit.toFixed(1)} B/unit`;
}

function title(sweep: MemorySweep): string {
  const windowMs = sweep.rows[0]?.windowMs ?? 0;
  return `Memory per full key against the limit, window ${formatDuration(windowMs)}`;
}

/** `  S sliding-log  ~8.1 B/unit  O(limit): grows with the limit`, the words left out where they would not fit `width`. */
function legendLine(letter: string, slope: SweepSlope, algorithms: readonly string[], width: number): string {
  const nameWidth = largest(algorithms.map((a) => a.length));
  const words = slope.growth === 'O(1)' ? ': flat, whatever the limit' : ': grows with the limit';
  const line = `  ${letter} ${slope.algorithm.padEnd(nameWidth)}  ${slopeText(slope).padEnd(12)} ${slope.growth}`;
  return line.length + words.length <= width ? line + words : line;
}

/** Bytes per key, algorithm x limit: as many limits side by side as fit in `width`, the rest in further blocks. */
function figureTables(sweep: MemorySweep, algorithms: readonly string[], width: number): string[] {
  const limits = [...new Set(sweep.rows.map((row) => row.limit))].sort((a, b) => a - b);
  const cell = (algorithm: string, limit: number) => {
    const row = sweep.rows.find((r) => r.algorithm === algorithm && r.limit === limit);
    return row === undefined ? '-' : count(Math.round(row.bytesPerKey));
  };
  const tableOf = (shown: readonly number[]) =>
    renderTable(
      [{ header: 'B per key at limit' }, ...rightAligned(...shown.map(count))],
      algorithms.map((algorithm) => [algorithm, ...shown.map((limit) => cell(algorithm, limit))]),
    ).split('\n');
  const out: string[] = [];
  let start = 0;
  while (start < limits.length) {
    let end = start + 1;
    while (end < limits.length && fits(tableOf(limits.slice(start, end + 1)), width)) end++;
    out.push(...tableOf(limits.slice(start, end)));
    start = end;
  }
  return out;
}

/** How many keys each probe filled: one figure when all did the same, else the exceptions named. */
function keysNote(rows: readonly SweepRow[]): string {
  const most = largest(rows.map((row) => row.keys));
  const fewer = rows.filter((row) => row.keys < most);
  const base = `Each point: ${count(most)} keys, each full (one request of limit units), in a fresh child process after a forced GC, key strings excluded`;
  if (fewer.length === 0) return `${base}.`;
  const exceptions = fewer.map((row) => `${row.algorithm} at ${count(row.limit)}: ${count(row.keys)}`).join(', ');
  return `${base}; fewer where the state would pass ${SWEEP_BUDGET_BYTES / 2 ** 20} MiB (${exceptions}).`;
}
