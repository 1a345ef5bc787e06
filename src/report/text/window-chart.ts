import * as asciichart from 'asciichart';
import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import type { WorkloadComparison } from '../../sim/comparison.js';
import type { FocusView } from '../../sim/focus.js';
import { CHART_WIDTH, runSpan } from '../chart-frame.js';
import { GLYPHS, glyphPanel } from './glyph-chart.js';
import { roundTimes, timeLabels } from './time-axis.js';
import { labelWidth, rowLabel, rowOf, windowScale, type WindowScale } from './window-scale.js';
import { wrapIndexes } from './wrap.js';
import { largest } from '../../metrics/largest.js';

const COLOURED_ROWS = 10;
const PANEL_ROWS = 5;
const SERIES_COLORS = [
  asciichart.blue,
  asciichart.green,
  asciichart.magenta,
  asciichart.cyan,
  asciichart.yellow,
  asciichart.lightblue,
  asciichart.lightred,
];

/** Series that drew the same line, drawn once under all their names. */
interface Group {
  names: string[];
  values: number[];
  exact?: number[];
}

/**
 * The charts of one key of a comparison: per column the most units admitted in a trailing
 * window, as a ratio of the limit, for every algorithm and the exact oracle, all on one
 * scale with the limit (1.0) on a labelled row. With colour: one chart, a legend naming
 * identical series together (`gcra = token-bucket`). Without: a small bar chart per line.
 * `policy` is the limit the view is charted under (a composite's: see `underLimit`).
 */
export function renderWindowCharts(
  result: WorkloadComparison,
  view: FocusView,
  paint: ChalkInstance,
  colour: boolean,
  policy: { limit: number; windowMs: number } = result.policy,
): string {
  const grid = view.chart;
  if (!grid) return '';
  const groups = groupSeries(view);
  const shared = view.oracle?.window;
  const peak = largest([...groups.flatMap((g) => g.values), ...(shared ?? [])]);
  const scale = windowScale(peak, colour ? COLOURED_ROWS : PANEL_ROWS);
  const width = labelWidth(scale);
  const who = view.worst ? `worst key ${view.key}` : `key ${view.key}`;
  const title = [
    `${result.name}: ${who}; most admitted in a trailing ${formatDuration(policy.windowMs)} window`,
    `per ${formatDuration(grid.widthMs)} column, as a ratio of the limit (1.0 = ${policy.limit} per ${formatDuration(policy.windowMs)})`,
  ];
  const originMs = runSpan(result).startMs;
  const times = roundTimes(grid.fromMs, grid.fromMs + grid.count * grid.widthMs, 5, originMs);
  const axis = timeLabels(
    width + 1,
    grid.count,
    times,
    (ms) => Math.round((ms - grid.fromMs) / grid.widthMs),
    originMs,
  );
  if (colour)
    return `${paint.bold(title.join('\n'))}\n${colouredChart(groups, shared, scale, width)}\n${axis}\n${legend(groups, shared !== undefined, width)}\n`;
  const panels = groups.map(
    (g) => `${sameAs(g.names, 79).join('\n')}:\n${glyphPanel(g.values, g.exact ?? shared, scale, width).join('\n')}`,
  );
  const key = `${GLYPHS.admitted} admitted   ${GLYPHS.exact} exact oracle, where it admitted more   ${GLYPHS.limit} the limit`;
  return `${title.join('\n')}\n${key}\n${panels.join('\n')}\n${axis}\n`;
}

/** Algorithms with identical lines (and, in an open loop, the oracle's) grouped, in row order. */
function groupSeries(view: FocusView): Group[] {
  const groups: Group[] = [];
  for (const lane of view.lanes) {
    const same = groups.find(
      (g) => sameValues(g.values, lane.series.window) && sameValues(g.exact, lane.oracle?.window),
    );
    if (same) same.names.push(lane.algorithm);
    else
      groups.push({
        names: [lane.algorithm],
        values: lane.series.window,
        ...(lane.oracle ? { exact: lane.oracle.window } : {}),
      });
  }
  const exact = view.oracle?.window;
  const asExact = exact && groups.find((g) => sameValues(g.values, exact));
  if (asExact) asExact.names.push('exact');
  return groups;
}

function sameValues(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function colouredChart(groups: Group[], exact: number[] | undefined, scale: WindowScale, width: number): string {
  const count = groups[0]?.values.length ?? 0;
  const series = [Array.from({ length: count }, () => 1), ...(exact ? [exact] : []), ...groups.map((g) => g.values)];
  const colors = [
    asciichart.red,
    ...(exact ? [asciichart.lightgray] : []),
    ...groups.map((_, i) => SERIES_COLORS[i % SERIES_COLORS.length]),
  ];
  return asciichart.plot(series, {
    min: 0,
    max: scale.top,
    height: scale.rows,
    offset: 2,
    colors,
    format: (x: number) => rowLabel(scale, rowOf(scale, x), width),
  });
}

function legend(groups: Group[], exact: boolean, indent: number): string {
  const entries: { text: string; color: asciichart.Color }[] = [{ text: '── limit', color: asciichart.red }];
  if (exact && !groups.some((g) => g.names.includes('exact')))
    entries.push({ text: '── exact', color: asciichart.lightgray });
  groups.forEach((g, i) => {
    const color = SERIES_COLORS[i % SERIES_COLORS.length] as asciichart.Color;
    for (const text of sameAs(g.names, CHART_WIDTH - indent - 3))
      entries.push({ text: text.startsWith('=') ? text : `── ${text}`, color });
  });
  const lines = wrapIndexes(
    entries.map((e) => e.text),
    CHART_WIDTH,
    indent,
  );
  return lines
    .map(
      (line) =>
        ' '.repeat(indent) +
        line
          .map((i) => asciichart.colored(entries[i]?.text as string, entries[i]?.color as asciichart.Color))
          .join('  '),
    )
    .join('\n');
}

/** `names` joined by " = " in lines of at most `width` (each line after the first starts with "="). */
function sameAs(names: readonly string[], width: number): string[] {
  const lines: string[] = [];
  for (const name of names) {
    const last = lines[lines.length - 1];
    if (last !== undefined && last.length + 3 + name.length <= width) lines[lines.length - 1] = `${last} = ${name}`;
    else lines.push(last === undefined ? name : `= ${name}`);
  }
  return lines;
}
