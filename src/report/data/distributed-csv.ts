import { stringify } from 'csv-stringify/sync';
import { ACCURACY_CSV_COLUMNS, accuracyCells } from '../accuracy-cells.js';
import type { DistributedComparison } from '../../sim/distributed/simulate.js';
import { roundToPlaces } from '../round.js';

/**
 * The CSV columns of `ratelab distributed`, in order; names are stable and carry their
 * units like `compare`'s: counts are requests, `worst_window_ratio` is units / the GLOBAL
 * limit, latencies are ms per decision, times are ms on the scenario's clock, store
 * calls are round trips (see `DistributedRow.storeCalls`). An empty cell means not
 * applicable (no sync period, no outage). Columns added later go at the end, so a
 * script reading by position keeps working.
 */
export const DISTRIBUTED_CSV_COLUMNS = [
  'scenario',
  'strategy',
  'fail_mode',
  'design',
  'nodes',
  'balance',
  'algorithm',
  'limit',
  'window_ms',
  'burst',
  'sync_ms',
  'rtt_ms',
  'timeout_ms',
  'outage_start_ms',
  'outage_end_ms',
  ...ACCURACY_CSV_COLUMNS,
  'added_latency_ms',
  'added_latency_p99_ms',
  'outage_offered',
  'outage_admitted',
  'keys',
  'store_calls',
  'store_calls_per_decision',
] as const;

/** One row per design, RFC 4180 (CRLF line ends, quoted where needed), with a header. */
export function distributedCsv(result: DistributedComparison): string {
  const { policy } = result;
  const records = result.rows.map((row) => [
    row.scenario,
    row.strategy,
    row.failMode,
    row.design,
    row.nodes,
    row.balance,
    row.algorithm,
    policy.limit,
    policy.windowMs,
    policy.burst ?? '',
    row.syncMs ?? '',
    row.rttMs,
    row.timeoutMs,
    row.outage?.startMs ?? '',
    row.outage?.endMs ?? '',
    ...accuracyCells(row, 4),
    roundToPlaces(row.addedLatencyMs, 4),
    row.addedLatencyP99Ms,
    row.outageOffered ?? '',
    row.outageAdmitted ?? '',
    row.keys,
    row.storeCalls,
    roundToPlaces(row.storeCallsPerDecision, 6),
  ]);
  return stringify(records, { header: true, columns: [...DISTRIBUTED_CSV_COLUMNS], record_delimiter: '\r\n' });
}
