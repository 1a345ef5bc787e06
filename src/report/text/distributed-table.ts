import type { ChalkInstance } from 'chalk';
import { formatDuration } from '../../core/duration.js';
import type { DistributedComparison, DistributedRow } from '../../sim/distributed/simulate.js';
import { asComparison } from '../distributed-as-comparison.js';
import { roundToSignificant } from '../round.js';
import { summarise } from './compare-summary.js';
import { MAX_WIDTH, describePolicy, worstWindowCell } from './compare-table.js';
import { count, fits, renderTable, rightAligned, type Column } from './table.js';
import { wrapWords } from './wrap.js';

const COLUMNS: Column[] = [
  { header: 'design' },
  ...rightAligned(
    'offered',
    'admitted',
    'false+',
    'false-',
    'error %',
    'worst win',
    'latency ms',
    'p99 ms',
    'store calls',
    'calls/dec',
    'outage adm',
  ),
];

/** `design` and the accuracy columns come first; a table too wide moves the rest (the costs, the outage) below. */
const FIRST_TABLE_COLUMNS = 7;

/**
 * The terminal report of one scenario through the fleet designs: a title with the policy,
 * a line describing the fleet, the lab's one-sentence summary, then the table
 * (worst-window ratios over the global limit in red) with the admitted share during the
 * outage when there was one. Every line fits `width` columns (at most {@link MAX_WIDTH}):
 * the text wraps, and a table too wide puts its cost columns (latency, calls to the
 * store) and the outage's in a second table below, as `compare` does with its memory and
 * speed columns.
 */
export function renderDistributed(result: DistributedComparison, paint: ChalkInstance, width = MAX_WIDTH): string {
  const fit = Math.min(width, MAX_WIDTH);
  const title = wrapWords(
    `${result.name} (${describePolicy(result.policy)}, global): ${result.description}`,
    fit,
    '  ',
  );
  const text = [fleetLine(result.rows), summarise(asComparison(result))].flatMap((line) => wrapWords(line, fit, '  '));
  const lines = [paint.bold(title[0] as string), ...title.slice(1).map((line) => paint.dim(line)), ...text, ''];
  const rows = result.rows.map((row) => cells(row, paint));
  let tables = table(COLUMNS, rows);
  if (!fits(tables, fit)) {
    tables = [
      ...table(firstPart(COLUMNS), rows.map(firstPart)),
      '',
      ...table(secondPart(COLUMNS), rows.map(secondPart)),
    ];
  }
  return [...lines, ...tables].join('\n') + '\n';
}

/** The first table's columns of a header or a row: `design` and the accuracy columns. */
function firstPart<T>(items: readonly T[]): T[] {
  return items.slice(0, FIRST_TABLE_COLUMNS);
}

/** The second table's: `design` again, then the rest. */
function secondPart<T>(items: readonly T[]): T[] {
  return [items[0] as T, ...items.slice(FIRST_TABLE_COLUMNS)];
}

function table(columns: readonly Column[], rows: readonly string[][]): string[] {
  return renderTable(columns, rows).trimEnd().split('\n');
}

function fleetLine(rows: readonly DistributedRow[]): string {
  const first = rows[0];
  if (first === undefined) return '';
  const sync = rows.find((row) => row.syncMs !== null)?.syncMs;
  const parts = [
    `${first.nodes} node${first.nodes === 1 ? '' : 's'}`,
    `${first.balance} balance`,
    first.algorithm,
    `rtt ${formatDuration(first.rttMs)}`,
  ];
  if (sync != null) parts.push(`sync every ${formatDuration(sync)}`);
  if (first.outage !== null)
    parts.push(
      `store down ${formatDuration(first.outage.startMs)}-${formatDuration(first.outage.endMs)} (timeout ${formatDuration(first.timeoutMs)})`,
    );
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
    count(row.storeCalls),
    String(roundToSignificant(row.storeCallsPerDecision, 3)),
    row.outageOffered === null ? '-' : `${count(row.outageAdmitted ?? 0)}/${count(row.outageOffered)}`,
  ];
}
