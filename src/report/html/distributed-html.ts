import { formatDuration } from '../../core/duration.js';
import { ACCURACY_COLUMNS, accuracyCells } from '../accuracy-cells.js';
import type { DistributedComparison, DistributedRow } from '../../sim/distributed/simulate.js';
import { roundToPlaces, roundToSignificant } from '../round.js';
import { matrixOf, scenarioOf } from './compare-html.js';
import { asComparison } from '../distributed-as-comparison.js';
import {
  htmlDocument,
  type HtmlBars,
  type HtmlCostAxis,
  type HtmlReport,
  type HtmlTable,
  type HtmlTradeOff,
  type HtmlTradeOffPoint,
} from './html-document.js';

/** One cost of a design: its trade-off axis, its figure (rounded as every chart and table shows it), and its bar chart if drawn. */
interface Cost {
  axis: HtmlCostAxis;
  value(row: DistributedRow): number;
  /** The bar chart's title and the unit after each bar's figure; none for a cost left to the table and the scatter. */
  bars?: { title: string; unit: string };
}

/**
 * What a design costs, as the simulator measures it: each a trade-off axis and a column of
 * the cost table, in this order. All cheaper lower; none drawn by powers of ten, since
 * `local-split` costs 0 of each. The calls' bars print the figure alone (the title says
 * per what), which keeps it within the bar chart's figure column.
 */
const COSTS: readonly Cost[] = [
  {
    axis: { label: 'store calls (per decision)', unit: 'per decision', better: 'lower' },
    value: (row) => roundToSignificant(row.storeCallsPerDecision, 4),
    bars: { title: 'store calls per decision (lower is cheaper)', unit: '' },
  },
  {
    axis: { label: 'added latency, mean (ms)', unit: 'ms', better: 'lower' },
    value: (row) => roundToPlaces(row.addedLatencyMs, 2),
    bars: { title: 'mean added wait (ms, lower is cheaper)', unit: 'ms' },
  },
  {
    axis: { label: 'added latency, p99 (ms)', unit: 'ms', better: 'lower' },
    value: (row) => roundToPlaces(row.addedLatencyP99Ms, 2),
  },
];

/**
 * The HTML report of `ratelab distributed`: compare's page with a line per design (for
 * each followed key, see DistributedComparison.followed) against the exact global oracle,
 * the store's outage shaded; the designs' accuracy in one table and their costs (calls to
 * the store, network waits, the outage) in a second, so each fits a 1280-px window; bars
 * of the costs, and the trade-off of error against each cost.
 */
export function distributedHtml(result: DistributedComparison): string {
  return htmlDocument(distributedReport(result));
}

/** The report's data (see {@link distributedHtml}). */
export function distributedReport(result: DistributedComparison): HtmlReport {
  const lab = { ...asComparison(result), ...(result.followed ? { followed: result.followed } : {}) };
  const scenario = scenarioOf(lab);
  const outage = result.rows.find((row) => row.outage !== null)?.outage;
  const first = result.rows[0];
  const fleet = first
    ? `${first.nodes} node${first.nodes === 1 ? '' : 's'} (${first.balance} balance, ${first.algorithm}, rtt ${formatDuration(first.rttMs)})`
    : 'no node';
  return {
    title: 'ratelab distributed',
    subtitle: `${result.name} spread over ${fleet}; every figure against the exact global limit`,
    matrix: matrixOf([lab]),
    scenarios: [
      {
        ...scenario,
        table: accuracyTable(result.rows),
        facts: [costTable(result.rows)],
        bars: COSTS.flatMap((cost) => costBars(result.rows, cost)),
        spans: outage
          ? [
              {
                fromMs: outage.startMs,
                toMs: outage.endMs,
                label: `store unreachable ${formatDuration(outage.startMs)}-${formatDuration(outage.endMs)}`,
              },
            ]
          : [],
      },
    ],
    ...(result.rows.length > 0 ? { tradeOff: tradeOff(result) } : {}),
  };
}

function accuracyTable(rows: readonly DistributedRow[]): HtmlTable {
  return {
    title: 'per design: accuracy against the global limit',
    columns: ['design', ...ACCURACY_COLUMNS],
    rows: rows.map((row) => [row.design, ...accuracyCells(row, 2)]),
  };
}

/** Calls to the store, network waits and, when there was an outage, what was admitted while the store was down. */
function costTable(rows: readonly DistributedRow[]): HtmlTable {
  const outage = rows.some((row) => row.outageOffered !== null);
  return {
    title: 'per design: what it costs',
    columns: [
      'design',
      'store calls',
      'calls / decision',
      'added latency ms',
      'p99 ms',
      ...(outage ? ['outage: admitted / offered'] : []),
    ],
    rows: rows.map((row) => [
      row.design,
      row.storeCalls,
      ...COSTS.map((cost) => cost.value(row)),
      ...(outage ? [row.outageOffered === null ? null : `${row.outageAdmitted} / ${row.outageOffered}`] : []),
    ]),
  };
}

function costBars(rows: readonly DistributedRow[], cost: Cost): HtmlBars[] {
  if (cost.bars === undefined) return [];
  const bars = rows.map((row) => ({ name: row.design, value: cost.value(row) }));
  return [{ title: cost.bars.title, unit: cost.bars.unit, bars }];
}

/**
 * Each design at (error %, cost): one point per design, the run being one scenario, so
 * each design's median is its point (named `median`, as the scatter marks medians).
 */
function tradeOff(result: DistributedComparison): HtmlTradeOff {
  const points = result.rows.map((row) => tradeOffPoint(row, result.name));
  return {
    title: 'What each design gets wrong against what it costs',
    xLabel: 'error % of requests vs the exact global oracle',
    costs: COSTS.map((cost) => cost.axis),
    contenders: result.rows.map((row) => row.design),
    points,
    medians: points.map((point) => ({ ...point, scenario: 'median' })),
  };
}

function tradeOffPoint(row: DistributedRow, scenario: string): HtmlTradeOffPoint {
  return {
    contender: row.design,
    scenario,
    x: roundToPlaces(row.errorRate, 3),
    costs: COSTS.map((cost) => cost.value(row)),
  };
}
