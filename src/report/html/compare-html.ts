import type { ComparisonRow, WorkloadComparison } from '../../sim/comparison.js';
import { ACCURACY_COLUMNS, accuracyCells } from '../accuracy-cells.js';
import { runSpan } from '../chart-frame.js';
import { largest, smallest } from '../../metrics/largest.js';
import { roundToPlaces } from '../round.js';
import { contenderCosts, contendersOf, tradeOffPoints, type TradeOffPoint } from '../trade-off.js';
import { summarise } from '../text/compare-summary.js';
import { describeLimits } from '../text/compare-table.js';
import {
  htmlDocument,
  type HtmlBars,
  type HtmlCostAxis,
  type HtmlReport,
  type HtmlScenario,
  type HtmlTable,
  type HtmlTradeOff,
  type HtmlView,
} from './html-document.js';
import { focusHtmlView, timelineHtmlView } from './html-views.js';
import type { WindowLimit } from '../../metrics/recorder.js';
import { underLimit, type FocusView } from '../../sim/focus.js';
import { windowLimitsOf } from '../../sim/workload.js';

/**
 * The HTML report of `ratelab compare`: the matrix, then per workload its sentence, table
 * and views (one per followed key, see {@link WorkloadComparison.followed}; else the
 * whole-run timelines). `subtitle` says what was run.
 */
export function comparisonHtml(results: readonly WorkloadComparison[], subtitle: string): string {
  return htmlDocument(comparisonReport(results, 'ratelab compare', subtitle));
}

/** The report's data (see {@link comparisonHtml}); `distributed` and `attack` build on it. */
export function comparisonReport(results: readonly WorkloadComparison[], title: string, subtitle: string): HtmlReport {
  const tradeOff = tradeOffOf(results);
  return {
    title,
    subtitle,
    matrix: matrixOf(results),
    scenarios: results.map(scenarioOf),
    ...(tradeOff ? { tradeOff } : {}),
  };
}

/** A cost the trade-off scatter can put on its y axis, and where a point's figure comes from. */
interface CostSource {
  axis: HtmlCostAxis;
  value: (point: Pick<TradeOffPoint, 'bytesPerKey' | 'speedRatio' | 'worstWindowRatio'>) => number | null;
  places: number;
}

/**
 * The scatter's cost axes, measured ones first. The worst window / limit is always there: it
 * is what a burst costs the protected service, and the one y axis left under `--no-measure`.
 */
const COSTS: readonly CostSource[] = [
  {
    axis: { label: 'memory per key (B)', unit: 'B', better: 'lower' },
    value: (point) => point.bytesPerKey,
    places: 1,
  },
  {
    axis: { label: 'speed (x ref)', unit: 'x ref', better: 'higher' },
    value: (point) => point.speedRatio,
    places: 3,
  },
  {
    axis: { label: 'worst window / limit', unit: 'x the limit', better: 'lower' },
    value: (point) => point.worstWindowRatio,
    places: 4,
  },
];

/** Figures that span at least this factor (max / min) are drawn by powers of ten. */
const LOG_SPAN = 10;

/**
 * The trade-off scatter: each (contender, workload) at (error %, cost) and each contender's
 * medians, on every cost some point has; none with a single contender (nothing to weigh).
 */
export function tradeOffOf(results: readonly WorkloadComparison[]): HtmlTradeOff | undefined {
  const contenders = contendersOf(results);
  if (contenders.length < 2) return undefined;
  const points = tradeOffPoints(results);
  const costs = COSTS.filter((cost) => points.some((point) => cost.value(point) !== null));
  const costsOf = (point: Parameters<CostSource['value']>[0]) =>
    costs.map((cost) => {
      const value = cost.value(point);
      return value === null ? null : roundToPlaces(value, cost.places);
    });
  return {
    title: 'What each algorithm gets wrong against what it costs',
    xLabel: 'error % of requests vs the exact oracle',
    costs: costs.map((cost) => ({ ...cost.axis, ...(spansDecades(points, cost) ? { log: true } : {}) })),
    contenders,
    points: points.map((point) => ({
      contender: point.contender,
      scenario: point.scenario,
      x: roundToPlaces(point.errorPercent, 3),
      costs: costsOf(point),
    })),
    medians: contenderCosts(results).map((median) => ({
      contender: median.contender,
      scenario: 'median',
      x: roundToPlaces(median.errorPercent, 3),
      costs: costsOf(median),
    })),
  };
}

function spansDecades(points: readonly TradeOffPoint[], cost: CostSource): boolean {
  const values = points.map(cost.value).filter((v): v is number => v !== null && v > 0);
  return values.length > 0 && largest(values, 0) >= LOG_SPAN * smallest(values, Infinity);
}

/** Scenario x contender (in order of appearance): worst window / limit and error %. */
export function matrixOf(results: readonly WorkloadComparison[]): HtmlReport['matrix'] {
  const columns = contendersOf(results);
  return {
    columns,
    rows: results.map((result) => ({
      scenario: result.name,
      cells: columns.map((name) => {
        const row = result.rows.find((r) => r.algorithm === name);
        return row
          ? { ratio: roundToPlaces(row.worstWindowRatio, 4), errorPercent: roundToPlaces(row.errorRate, 2) }
          : null;
      }),
    })),
  };
}

/** One workload's part of the report: its sentence and notes, table, and views. */
export function scenarioOf(result: WorkloadComparison): HtmlScenario {
  const originMs = runSpan(result).startMs;
  const limits = windowLimitsOf(result);
  const views = (result.followed ?? [])
    .filter((view) => view.chart)
    .flatMap((view) =>
      limits.length === 1
        ? [focusHtmlView(view, result.policy, result.worstWindows, originMs)]
        : limits.map((limit, i) => limitHtmlView(result, view, limit, i, originMs)),
    );
  return {
    name: result.name,
    description: result.description,
    policy: describeLimits(result),
    windowMs: result.policy.windowMs,
    notes: [summarise(result), ...result.notes],
    table: rowsTable(result.rows),
    facts: [],
    ...barsOf(result.rows),
    spans: [],
    views: views.length > 0 ? views : [timelineHtmlView('all keys', result.timelines, result.policy)],
  };
}

/**
 * A composite's followed key charted under its limit `i` (`limit`), labelled with the
 * limit's name, each algorithm's worst window under that limit marked. The request strips
 * (the same requests under every limit) go with the first limit's view only.
 */
function limitHtmlView(
  result: WorkloadComparison,
  view: FocusView,
  limit: WindowLimit,
  i: number,
  originMs: number,
): HtmlView {
  const worst = result.rows.map((row) => row.limits?.[i]?.worstWindow ?? null);
  const html = focusHtmlView(underLimit(view, i), limit, worst, originMs);
  return { ...html, label: `${html.label} (${limit.name} limit)`, strips: i === 0 ? html.strips : [] };
}

/** Memory per key and speed per contender as bars, each when measured (`--no-measure`: none). */
function barsOf(rows: readonly ComparisonRow[]): Pick<HtmlScenario, 'bars'> {
  const chart = (title: string, unit: string, value: (row: ComparisonRow) => number | null, places: number) => {
    const bars = rows.flatMap((row) => {
      const v = value(row);
      return v === null ? [] : [{ name: row.algorithm, value: roundToPlaces(v, places) }];
    });
    return bars.length === 0 ? [] : [{ title, unit, bars }];
  };
  const bars: HtmlBars[] = [
    ...chart('memory per key (B, lower is cheaper)', 'B', (row) => row.bytesPerKey, 0),
    ...chart('speed (x ref, higher is faster)', 'x ref', (row) => row.speedRatio, 2),
  ];
  return bars.length === 0 ? {} : { bars };
}

/**
 * What each contender did, the measured columns only when measured, and for a composite
 * (or watched limits) each limit's worst-window ratio after the accuracy columns.
 */
function rowsTable(rows: readonly ComparisonRow[]): HtmlTable {
  const bytes = rows.some((row) => row.bytesPerKey !== null);
  const speed = rows.some((row) => row.speedRatio !== null);
  const limits = rows[0]?.limits ?? [];
  return {
    title: 'per algorithm',
    columns: [
      'algorithm',
      ...ACCURACY_COLUMNS,
      ...limits.map((limit) => `worst ${limit.name}${limit.watched ? '*' : ''}`),
      'keys',
      ...(bytes ? ['B/key'] : []),
      ...(speed ? ['speed x ref'] : []),
    ],
    rows: rows.map((row) => [
      row.algorithm,
      ...accuracyCells(row, 2),
      ...limits.map((_, i) => {
        const ratio = row.limits?.[i]?.ratio;
        return ratio === undefined ? null : roundToPlaces(ratio, 2);
      }),
      row.keys,
      ...(bytes ? [row.bytesPerKey === null ? null : Math.round(row.bytesPerKey)] : []),
      ...(speed ? [row.speedRatio === null ? null : roundToPlaces(row.speedRatio, 2)] : []),
    ]),
  };
}
