import * as asciichart from 'asciichart';
import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import type { WorkloadComparison } from '../../sim/comparison.js';
import { CHART_WIDTH } from '../chart-frame.js';
import { renderWindowCharts } from './window-chart.js';
import { underLimit } from '../../sim/focus.js';
import { windowLimitsOf } from '../../sim/workload.js';
import { wrapIndexes } from './wrap.js';

/** Width of the y-axis labels, columns. */
const LABEL_WIDTH = 8;
const MAX_POINTS = CHART_WIDTH - LABEL_WIDTH - 4;
const SERIES_COLORS = [
  asciichart.blue,
  asciichart.green,
  asciichart.magenta,
  asciichart.cyan,
  asciichart.yellow,
  asciichart.lightred,
  asciichart.lightblue,
];

/**
 * The charts of one workload. With a followed key ({@link WorkloadComparison.focus}, as
 * `compare` asks for): its trailing-window ratios, see {@link renderWindowCharts}.
 * Otherwise (`attack`, `distributed`) the timelines as asciichart charts, at most 80 columns wide (buckets
 * are merged to fit). With colour: one chart with offered units per bucket (grey), the
 * limit per bucket (red) and each algorithm's admitted units, with a legend. Without
 * colour the lines could not be told apart, so each algorithm gets its own small chart
 * of admitted units against the limit line.
 */
export function renderCharts(result: WorkloadComparison, paint: ChalkInstance, colour: boolean): string {
  const { focus } = result;
  if (focus?.chart) {
    // A composite's key charted under each of its limits in turn, the first first.
    const limits = windowLimitsOf(result);
    return limits.map((limit, i) => renderWindowCharts(result, underLimit(focus, i), paint, colour, limit)).join('\n');
  }
  const first = result.timelines[0]?.timeline;
  if (!first || first.offered.length === 0) return '';
  const factor = Math.ceil(first.offered.length / MAX_POINTS);
  const binMs = first.bucketMs * factor;
  const limitLine = (result.policy.limit * binMs) / result.policy.windowMs;
  const admitted = result.timelines.map(({ algorithm, timeline }) => ({
    algorithm,
    points: rebin(timeline.admitted, factor),
  }));
  const offered = rebin(first.offered, factor);
  const limit = offered.map(() => limitLine);
  const title = `${result.name}: units per ${formatDuration(binMs)}; limit ${format(limitLine)} per ${formatDuration(binMs)}`;
  if (colour) {
    const colors = [
      asciichart.lightgray,
      asciichart.red,
      ...admitted.map((_, i) => SERIES_COLORS[i % SERIES_COLORS.length]),
    ];
    const chart = asciichart.plot([offered, limit, ...admitted.map((a) => a.points)], {
      height: 12,
      colors,
      format: label,
    });
    const names = ['offered', 'limit', ...admitted.map((a) => a.algorithm)];
    const legend = wrapIndexes(names, CHART_WIDTH, LABEL_WIDTH).map(
      (line) => ' '.repeat(LABEL_WIDTH) + line.map((i) => asciichart.colored(names[i] as string, colors[i])).join('  '),
    );
    return `${paint.bold(title)}\n${chart}\n${legend.join('\n')}\n`;
  }
  const panels = admitted.map(
    (a) =>
      `${a.algorithm}: admitted (flat line: the limit)\n${asciichart.plot([a.points, limit], { height: 5, format: label, min: 0 })}`,
  );
  return `${title}\n${panels.join('\n')}\n`;
}

/** Sums `factor` consecutive buckets into one (the last one may be partial). */
function rebin(values: readonly number[], factor: number): number[] {
  if (factor <= 1) return [...values];
  const out: number[] = [];
  for (let i = 0; i < values.length; i += factor) {
    let sum = 0;
    for (let j = i; j < Math.min(i + factor, values.length); j++) sum += values[j] as number;
    out.push(sum);
  }
  return out;
}

function label(x: number): string {
  return format(x).padStart(LABEL_WIDTH);
}

function format(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toFixed(1);
}
