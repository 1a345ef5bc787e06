import { formatDuration } from '../../core/duration.js';
import type { ColumnGrid, FocusSeries } from '../../metrics/focus-recorder.js';
import type { Timeline } from '../../metrics/timeline.js';
import type { Policy } from '../../core/policy.js';
import { worstKey, worstKeys, type FocusPlan, type FocusView } from '../../sim/focus.js';
import { roundWidth, type Span } from '../chart-frame.js';
import { roundToPlaces } from '../round.js';
import { sinceStart } from '../run-time.js';
import { downsampleMinMax } from './downsample.js';
import type { HtmlSeries, HtmlStrip, HtmlView } from './html-document.js';

/**
 * Most points of one series in an HTML report: enough for a sharp line across a wide
 * screen, few enough that a report of a million arrivals stays small (measured in docs/report.md).
 */
export const HTML_MAX_POINTS = 2000;

/** Keys of a workload the HTML report follows at most (picked in a list). */
export const HTML_MAX_KEYS = 5;

/** The columns of a followed key in the HTML report: the run, in at most {@link HTML_MAX_POINTS} columns of a round width. */
export function htmlGrid(span: Span): ColumnGrid {
  const length = Math.max(1, span.endMs - span.startMs);
  const widthMs = roundWidth(length / HTML_MAX_POINTS);
  return { fromMs: span.startMs, widthMs, count: Math.ceil(length / widthMs) };
}

/**
 * The keys an HTML report follows over the whole run `span`, on {@link htmlGrid}: `asked`
 * when given (--key), then the keys of the contenders' worst windows, highest first, at
 * most {@link HTML_MAX_KEYS}.
 */
export function htmlFollowPlans(worstWindows: readonly WorstWindow[], span: Span, asked?: string): FocusPlan[] {
  const worst = worstKey(worstWindows)?.key;
  const keys = [...new Set([...(asked === undefined ? [] : [asked]), ...worstKeys(worstWindows, HTML_MAX_KEYS)])].slice(
    0,
    HTML_MAX_KEYS,
  );
  const grid = htmlGrid(span);
  return keys.map((key) => ({ key, worst: key === worst, chart: grid, strip: grid }));
}

/** Where a contender's worst window was (null when it admitted nothing). */
export type WorstWindow = { key: string; endMs: number; units: number } | null;

/**
 * A followed key as a view: per contender the most units admitted in a trailing window per
 * column, as a ratio of the limit, with the oracle's line(s) and the limit; the highest of
 * the contenders' worst windows on this key highlighted; a request strip per contender
 * and the oracle. `worstWindows` are in the view's lane order. Times (x, the worst
 * window) are since the run's start, `originMs`.
 */
export function focusHtmlView(
  view: FocusView,
  policy: Policy,
  worstWindows: readonly WorstWindow[],
  originMs: number,
): HtmlView {
  const grid = view.chart as ColumnGrid;
  const x = Array.from({ length: grid.count }, (_, i) => sinceStart(grid.fromMs + i * grid.widthMs, originMs));
  const ratios = (values: readonly number[]) => values.map((v) => roundToPlaces(v, 4));
  const series: HtmlSeries[] = [{ name: 'limit', kind: 'limit', values: x.map(() => 1) }];
  if (view.oracle) series.push({ name: 'exact', kind: 'exact', values: ratios(view.oracle.window) });
  for (const lane of view.lanes) {
    if (lane.oracle)
      series.push({
        name: `exact on ${lane.algorithm}'s traffic`,
        kind: 'exact',
        values: ratios(lane.oracle.window),
        hidden: true,
      });
  }
  for (const lane of view.lanes)
    series.push({ name: lane.algorithm, kind: 'limiter', values: ratios(lane.series.window) });
  const strips = view.lanes.map((lane) => strip(lane.algorithm, lane.series));
  if (view.oracle) strips.push(strip('exact', view.oracle));
  return {
    label: `${view.worst ? 'worst key' : 'key'} ${view.key}`,
    title: `key ${view.key}: the most admitted in a trailing ${formatDuration(policy.windowMs)} window per ${formatDuration(grid.widthMs)}, over the limit (1.0 = ${policy.limit})`,
    yLabel: 'trailing window / limit',
    x,
    series,
    worst: worstOn(view, policy, worstWindows, originMs),
    strips,
  };
}

/**
 * A view of whole-run timelines (no key followed: `distributed`): per contender, the units
 * admitted in the window ending at each bucket's end (exact when the window is a whole
 * number of buckets; otherwise per bucket, scaled to a window), as a ratio of the limit,
 * with what was offered, thinned to {@link HTML_MAX_POINTS} keeping each stretch's extremes.
 * Times are since the timelines' origin (the run's start).
 */
export function timelineHtmlView(
  label: string,
  timelines: readonly { algorithm: string; timeline: Timeline }[],
  policy: Policy,
): HtmlView {
  const first = timelines[0]?.timeline;
  const bucketMs = first?.bucketMs ?? policy.windowMs;
  const buckets = first?.offered.length ?? 0;
  const whole = policy.windowMs % bucketMs === 0 ? policy.windowMs / bucketMs : 0;
  const ratio = (values: readonly number[]) => windowRatios(values, whole, bucketMs, policy);
  const raw = [first ? ratio(first.offered) : [], ...timelines.map(({ timeline }) => ratio(timeline.admitted))];
  const x0 = Array.from({ length: buckets }, (_, i) => i * bucketMs);
  const thin = downsampleMinMax(x0, raw, HTML_MAX_POINTS);
  const what =
    whole > 0
      ? `admitted in the ${formatDuration(policy.windowMs)} window ending at each ${formatDuration(bucketMs)} bucket's end`
      : `admitted per ${formatDuration(bucketMs)} bucket, scaled to a ${formatDuration(policy.windowMs)} window`;
  return {
    label,
    title: `${label}: ${what}, over the limit (1.0 = ${policy.limit})`,
    yLabel: 'window / limit',
    x: thin.x,
    series: [
      { name: 'limit', kind: 'limit', values: thin.x.map(() => 1) },
      {
        name: 'offered',
        kind: 'offered',
        values: (thin.series[0] as number[]).map((v) => roundToPlaces(v, 4)),
        hidden: true,
      },
      ...timelines.map(({ algorithm }, i) => ({
        name: algorithm,
        kind: 'limiter' as const,
        values: (thin.series[i + 1] as number[]).map((v) => roundToPlaces(v, 4)),
      })),
    ],
    worst: null,
    strips: [],
  };
}

/** Per bucket, the units in the last `whole` buckets (or, with 0, the bucket scaled to a window), over the limit. */
function windowRatios(values: readonly number[], whole: number, bucketMs: number, policy: Policy): number[] {
  if (whole === 0) return values.map((v) => (v * policy.windowMs) / bucketMs / policy.limit);
  const out: number[] = [];
  let sum = 0;
  for (let i = 0; i < values.length; i++) {
    sum += (values[i] as number) - (i >= whole ? (values[i - whole] as number) : 0);
    out.push(sum / policy.limit);
  }
  return out;
}

function strip(name: string, series: FocusSeries): HtmlStrip {
  return {
    name,
    admitted: series.admitted,
    denied: series.denied,
    falseAdmits: series.falseAdmits,
    falseDenials: series.falseDenials,
  };
}

/** The highest worst window among the contenders whose worst window was on this view's key. */
function worstOn(
  view: FocusView,
  policy: Policy,
  worstWindows: readonly WorstWindow[],
  originMs: number,
): HtmlView['worst'] {
  let best: { algorithm: string; window: NonNullable<WorstWindow> } | undefined;
  view.lanes.forEach((lane, i) => {
    const window = worstWindows[i];
    if (window && window.key === view.key && (!best || window.units > best.window.units))
      best = { algorithm: lane.algorithm, window };
  });
  if (!best) return null;
  const { endMs, units } = best.window;
  return {
    fromMs: sinceStart(endMs - policy.windowMs, originMs),
    toMs: sinceStart(endMs, originMs),
    label: `worst window: ${best.algorithm}, ${(units / policy.limit).toFixed(2)}x the limit`,
  };
}
