import { stringify } from 'csv-stringify/sync';
import type { MemorySweep } from '../../metrics/memory-sweep.js';
import { roundToPlaces } from '../round.js';

/**
 * The columns of `compare --sweep-limit --csv`, in order, stable for scripts: `limit` in
 * units per window, `window_ms` the window, `keys` the keys the probe filled, `bytes_per_key`
 * heap + external bytes per full key (key strings excluded).
 */
export const SWEEP_CSV_COLUMNS = ['algorithm', 'limit', 'window_ms', 'keys', 'bytes_per_key'] as const;

/** One row per (algorithm, limit), RFC 4180 (CRLF line ends, quoted where needed), with a header. */
export function memorySweepCsv(sweep: MemorySweep): string {
  const records = sweep.rows.map((row) => [
    row.algorithm,
    row.limit,
    row.windowMs,
    row.keys,
    roundToPlaces(row.bytesPerKey, 1),
  ]);
  return stringify(records, { header: true, columns: [...SWEEP_CSV_COLUMNS], record_delimiter: '\r\n' });
}
