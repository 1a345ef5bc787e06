import type { ChalkInstance } from 'chalk';
import type { WorkloadComparison } from '../../sim/comparison.js';
import { largest, smallest } from '../../metrics/largest.js';
import { contenderCosts, type ContenderCosts } from '../trade-off.js';
import { barChart, type Bar } from './bar-chart.js';
import { MAX_WIDTH, speedRatioCell } from './compare-table.js';
import { letterPlot, lettersFor } from './letter-plot.js';
import { wrapIndexes, wrapWords } from './wrap.js';

/** Grid rows of the trade-off scatter: enough to part the contenders, few enough for the summary's line budget. */
const SCATTER_HEIGHT = 7;

/** What the scatter's x axis is, under its ticks. */
export const SCATTER_X_LABEL = 'error % vs the exact sliding log';

/**
 * The trade-off that closes `ratelab compare`, from the per-contender medians of
 * {@link contenderCosts}: bars of memory per key and of speed (x ref), then a scatter of
 * each contender at (median error %, median B/key), a letter per contender and a legend.
 * Only measured figures are drawn: without any (`--no-measure`) it is '' (the matrix above
 * already holds both error figures, and a scatter without a cost trades nothing); a
 * contender without a figure is left out of that chart. Lines fit `width` (at most
 * {@link MAX_WIDTH}).
 */
export function renderTradeOffCharts(
  results: readonly WorkloadComparison[],
  paint: ChalkInstance,
  width = MAX_WIDTH,
): string {
  const fit = Math.min(width, MAX_WIDTH);
  const costs = contenderCosts(results);
  const over = results.length === 1 ? `in ${results[0]?.name}` : `medians over ${results.length} scenarios`;
  const memory = bars(costs, (c) => c.bytesPerKey);
  const speed = bars(costs, (c) => c.speedRatio);
  const parts: string[][] = [];
  if (memory.length > 0)
    parts.push(chart(`memory per key (heap bytes per key, ${over})`, memory, (v) => `${v.toFixed(0)} B`, fit, paint));
  if (speed.length > 0)
    parts.push(chart(`speed (x ref: over a reference in the same rounds, ${over})`, speed, speedRatioCell, fit, paint));
  const measured = costs.filter((c) => c.bytesPerKey !== null);
  if (measured.length > 0) parts.push(scatter(measured, over, fit, paint));
  return parts.map((lines) => `\n${lines.join('\n')}\n`).join('');
}

function bars(costs: readonly ContenderCosts[], value: (c: ContenderCosts) => number | null): Bar[] {
  return costs.flatMap((c) => {
    const figure = value(c);
    return figure === null ? [] : [{ label: c.contender, value: figure }];
  });
}

function chart(
  title: string,
  bars: readonly Bar[],
  format: (value: number) => string,
  width: number,
  paint: ChalkInstance,
): string[] {
  // A title too wide for the terminal goes on over its next lines, above the bars.
  const [head, ...rest] = wrapWords(title, width, '  ');
  const [first, ...body] = barChart({ title: paint.bold(head ?? ''), groups: [{ bars }], format, width, paint });
  return [first ?? '', ...rest, ...body];
}

/**
 * Each contender at (median error %, median B/key), both axes linear (x from 0, exact;
 * y over the tens around the figures, since the contenders' memory differs by a fraction
 * of itself and the bars above already show it from 0), under a title
 * saying what the axes are, and a legend of letter and name. Coinciding contenders (the
 * token bucket and GCRA decide alike) read side by side, as `TG`.
 */
/** Under the scatter: what its memory is, and where memory at larger limits is drawn. */
export const SWEEP_HINT = 'B/key: one request a key; full keys by limit: --sweep-limit 10,100,1000,10000';

function scatter(costs: readonly ContenderCosts[], over: string, width: number, paint: ChalkInstance): string[] {
  const letters = lettersFor(costs.map((c) => c.contender));
  const title = wrapWords(
    `trade-off (${over}): what each gets wrong (x, ${SCATTER_X_LABEL}) against what it costs (y, heap B/key); lower left is better`,
    width,
    '  ',
  );
  const bytes = costs.map((c) => c.bytesPerKey as number);
  const plot = letterPlot({
    x: { label: SCATTER_X_LABEL, scale: 'linear', format: (v) => `${v.toFixed(v < 10 ? 1 : 0)}%` },
    y: { label: 'B/key', scale: 'linear', format: (v) => v.toFixed(0), ...tensAround(bytes) },
    points: costs.map((c, i) => ({ letter: letters[i] as string, x: c.errorPercent, y: c.bytesPerKey as number })),
    width,
    height: SCATTER_HEIGHT,
  });
  const entries = costs.map((c, i) => `${letters[i]} ${c.contender}`);
  const legend = wrapIndexes(entries, width, 0).map((line) => line.map((i) => entries[i]).join('  '));
  // B/key here is after one request a key; a sliding log's full key grows with the limit,
  // which only the sweep shows, so the closing line points there.
  const sweep = wrapWords(SWEEP_HINT, width, '  ');
  return [
    paint.bold(title[0] ?? ''),
    ...title.slice(1),
    ...plot,
    ...[...legend, ...sweep].map((line) => paint.dim(line)),
  ];
}

/** Bounds on the multiples of ten just around `values` (`78..108` -> 70..110), so the figures fill the axis. */
function tensAround(values: readonly number[]): { min: number; max: number } {
  return { min: Math.floor(smallest(values) / 10) * 10, max: Math.ceil(largest(values) / 10) * 10 };
}
