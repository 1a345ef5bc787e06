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

/**
 * What a design costs, as the simulator measures it: each a trade-off axis, a bar chart
 * and a column of the cost table, in this order. All cheaper lower; none drawn by powers
 * of ten, since `local-split` costs 0 of each.
 */
const COSTS: readonly { axis: HtmlCostAxis; value(row: DistributedRow): number }[] = [
  {
    axis: { label: 'store calls per decision', unit: 'calls/decision', better: 'lower' },
    value: (row) => roundToSignificant(row.storeCallsPerDecision, 4),
  },
  {
    axis: { label: 'added latency per decision, mean (ms)', unit: 'ms', better: 'lower' },
    value: (row) => roundToPlaces(row.addedLatencyMs, 2),
  },
  {
    axis: { label: 'added latency per decision, p99 (ms)', unit: 'ms', better: 'lower' },
    value: (row) => roundToPlaces(row.addedLatencyP99Ms, 2),
  },
];

/** The costs drawn as bars beside the table: calls and the mean latency (the p99 is in the table and the scatter). */
const BAR_COSTS = COSTS.slice(0, 2);

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
        bars: BAR_COSTS.map((cost) => costBars(result.rows, cost.axis, cost.value)),
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

function costBars(
  rows: readonly DistributedRow[],
  axis: HtmlCostAxis,
  value: (row: DistributedRow) => number,
): HtmlBars {
  return { title: axis.label, unit: axis.unit, bars: rows.map((row) => ({ name: row.design, value: value(row) })) };
}

/**
 * Each design at (error %, cost): one point per design, the run being one scenario, so
 * each design's median is its point (named `median`, as the scatter marks medians).
 */
function tradeOff(result: DistributedComparison): HtmlTradeOff {
  const points = result.rows.map((row) => tradeOffPoint(row, result.name));
  return {
    title: 'what each design gets wrong against what it costs',
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
    x: roundToPlaces(row.errorRate, 2),
    costs: COSTS.map((cost) => cost.value(row)),
  };
}
