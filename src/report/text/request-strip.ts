import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import type { ColumnGrid, FocusSeries } from '../../metrics/focus-recorder.js';
import type { WorkloadComparison } from '../../sim/comparison.js';
import type { FocusView } from '../../sim/focus.js';
import { runSpan } from '../chart-frame.js';
import { timeLabels } from './time-axis.js';

/** Glyphs of a strip cell, readable without colour. */
const STRIP_GLYPHS = { admitted: '#', denied: 'x', mixed: '*', none: '·', edge: '|' } as const;

const NAME_WIDTH = 17;
/** Window edges marked inside a strip at most (more would crowd it; the axis still shows the span). */
const MAX_EDGES = 8;

/**
 * The request strip of one key, what the browser playgrounds show: per algorithm (and the
 * exact oracle) one row of cells over time, each cell the key's requests in it admitted
 * (`#`), denied (`x`), both (`*`) or none (`·`), with the fixed windows' edges marked `|`
 * and a time axis. Colour only adds to the glyphs.
 */
export function renderStrip(result: WorkloadComparison, view: FocusView, paint: ChalkInstance): string {
  const grid = view.strip;
  if (!grid) return '';
  const windowMs = result.policy.windowMs;
  const edges = edgeCells(grid, windowMs);
  const toMs = grid.fromMs + grid.count * grid.widthMs;
  const who = view.worst ? `worst key ${view.key}` : `key ${view.key}`;
  const lines = [`${result.name}: requests of ${who}, one cell = ${formatDuration(grid.widthMs)}`];
  const column = (ms: number) => displayColumn(grid, edges, ms);
  // Cells align to the epoch (so fixed windows' edges fall between them); a run that starts
  // inside the first cell labels it with its start, never a time before the run.
  const originMs = runSpan(result).startMs;
  const times = [Math.max(grid.fromMs, originMs), ...edges.map((i) => grid.fromMs + i * grid.widthMs), toMs];
  lines.push(timeLabels(NAME_WIDTH, grid.count + edges.length, times, column, originMs));
  for (const lane of view.lanes) {
    lines.push(row(lane.algorithm, lane.series, edges, paint));
    if (lane.oracle) lines.push(row('  exact', lane.oracle, edges, paint));
  }
  if (view.oracle) lines.push(row('exact', view.oracle, edges, paint));
  const g = STRIP_GLYPHS;
  lines.push(
    `${' '.repeat(NAME_WIDTH)}${g.admitted} admitted  ${g.denied} denied  ${g.mixed} both  ${g.none} none  ${g.edge} window edge (every ${formatDuration(windowMs)})`,
  );
  return `${lines.join('\n')}\n`;
}

/** Cells starting at (or holding) a fixed window's edge strictly inside the grid, first to last. */
function edgeCells(grid: ColumnGrid, windowMs: number): number[] {
  const cells: number[] = [];
  const toMs = grid.fromMs + grid.count * grid.widthMs;
  for (
    let edge = (Math.floor(grid.fromMs / windowMs) + 1) * windowMs;
    edge < toMs && cells.length < MAX_EDGES;
    edge += windowMs
  ) {
    cells.push(Math.floor((edge - grid.fromMs) / grid.widthMs));
  }
  return cells;
}

/** Where time `ms` is drawn: its cell, shifted by the edge marks before it (an edge's own time: its mark). */
function displayColumn(grid: ColumnGrid, edges: number[], ms: number): number {
  const cell = Math.floor((ms - grid.fromMs) / grid.widthMs);
  const before = edges.filter((e) => e < cell).length;
  const onEdge = edges.includes(cell) && ms === grid.fromMs + cell * grid.widthMs;
  return cell + before + (onEdge ? 0 : edges.filter((e) => e === cell).length);
}

function row(name: string, series: FocusSeries, edges: number[], paint: ChalkInstance): string {
  let line = name.padEnd(NAME_WIDTH);
  for (let i = 0; i < series.admitted.length; i++) {
    if (edges.includes(i)) line += paint.dim(STRIP_GLYPHS.edge);
    line += cellGlyph(series.admitted[i] as number, series.denied[i] as number, paint);
  }
  return line;
}

function cellGlyph(admitted: number, denied: number, paint: ChalkInstance): string {
  if (admitted > 0 && denied > 0) return paint.yellow(STRIP_GLYPHS.mixed);
  if (admitted > 0) return paint.green(STRIP_GLYPHS.admitted);
  if (denied > 0) return paint.red(STRIP_GLYPHS.denied);
  return paint.dim(STRIP_GLYPHS.none);
}
