import { formatDuration } from '../../core/duration.js';
import { ACCURACY_COLUMNS, accuracyCells } from '../accuracy-cells.js';
import type { DistributedComparison } from '../../sim/distributed/simulate.js';
import { roundToPlaces } from '../round.js';
import { matrixOf, scenarioOf } from './compare-html.js';
import { asComparison } from '../distributed-as-comparison.js';
import { htmlDocument, type HtmlTable } from './html-document.js';

/**
 * The HTML report of `ratelab distributed`: compare's page with a line per design (for
 * each followed key, see DistributedComparison.followed) against the exact global oracle,
 * the store's outage shaded, and the designs' network waits in the table.
 */
export function distributedHtml(result: DistributedComparison): string {
  const lab = { ...asComparison(result), ...(result.followed ? { followed: result.followed } : {}) };
  const scenario = scenarioOf(lab);
  const outage = result.rows.find((row) => row.outage !== null)?.outage;
  const first = result.rows[0];
  const fleet = first
    ? `${first.nodes} node${first.nodes === 1 ? '' : 's'} (${first.balance} balance, ${first.algorithm}, rtt ${formatDuration(first.rttMs)})`
    : 'no node';
  return htmlDocument({
    title: 'ratelab distributed',
    subtitle: `${result.name} spread over ${fleet}; every figure against the exact global limit`,
    matrix: matrixOf([lab]),
    scenarios: [
      {
        ...scenario,
        table: designTable(result),
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
  });
}

function designTable(result: DistributedComparison): HtmlTable {
  return {
    title: 'per design',
    columns: ['design', ...ACCURACY_COLUMNS, 'added latency ms', 'p99 ms', 'admitted / offered in the outage'],
    rows: result.rows.map((row) => [
      row.design,
      ...accuracyCells(row, 2),
      roundToPlaces(row.addedLatencyMs, 2),
      roundToPlaces(row.addedLatencyP99Ms, 2),
      row.outageOffered === null ? null : `${row.outageAdmitted} / ${row.outageOffered}`,
    ]),
  };
}
