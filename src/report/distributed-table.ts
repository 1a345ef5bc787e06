import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../duration.js';
import type { DistributedComparison, DistributedRow } from '../sim/distributed/simulate.js';
import { asComparison } from './distributed-as-comparison.js';
import { summarise } from './compare-summary.js';
import { describePolicy, worstWindowCell } from './compare-table.js';
import { count } from './table.js';
import { renderTable, type Column } from './table.js';

const COLUMNS: Column[] = [
  { header: 'design' },
  { header: 'offered', align: 'right' },
  { header: 'admitted', align: 'right' },
  { header: 'false+', align: 'right' },
  { header: 'false-', align: 'right' },
  { header: 'error %', align: 'right' },
  { header: 'worst win', align: 'right' },
  { header: 'latency ms', align: 'right' },
  { header: 'p99 ms', align: 'right' },
  { header: 'outage adm', align: 'right' },
];

/**
 * The terminal report of one scenario through the fleet designs: a title with the policy,
 * a line describing the fleet, the lab's one-sentence summary, then the table
 * (worst-window ratios over the global limit in red) with the admitted share during the
 * outage when there was one.
 */
export function renderDistributed(result: DistributedComparison, paint: ChalkInstance): string {
  const lines = [paint.bold(result.name) + paint.dim(` (${describePolicy(result.policy)}, global): ${result.description}`), fleetLine(result.rows), summarise(asComparison(result)), ''];
  const table = renderTable(COLUMNS, result.rows.map((row) => cells(row, paint)));
  return [...lines, table.trimEnd()].join('\n') + '\n';
}

function fleetLine(rows: readonly DistributedRow[]): string {
  const first = rows[0];
  if (first === undefined) return '';
  const sync = rows.find((row) => row.syncMs !== null)?.syncMs;
  const parts = [`${first.nodes} node${first.nodes === 1 ? '' : 's'}`, `${first.balance} balance`, first.algorithm, `rtt ${formatDuration(first.rttMs)}`];
  if (sync != null) parts.push(`sync every ${formatDuration(sync)}`);
  if (first.outage !== null) parts.push(`store down ${formatDuration(first.outage.startMs)}-${formatDuration(first.outage.endMs)} (timeout ${formatDuration(first.timeoutMs)})`);
  return `fleet: ${parts.join(', ')}`;
}

function cells(row: DistributedRow, paint: ChalkInstance): string[] {
  return [
    row.design,
    count(row.offered),
    count(row.admitted),
    count(row.falseAdmits),
    count(row.falseDenials),
    row.errorRate.toFixed(2),
    worstWindowCell(row.worstWindowRatio, paint),
    row.addedLatencyMs.toFixed(2),
    String(row.addedLatencyP99Ms),
    row.outageOffered === null ? '-' : `${count(row.outageAdmitted ?? 0)}/${count(row.outageOffered)}`,
  ];
}
