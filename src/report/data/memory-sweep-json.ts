import type { MemorySweep } from '../../metrics/memory-sweep.js';
import { roundToPlaces } from '../round.js';
import { JSON_FORMAT_VERSION } from './json-format.js';

/**
 * `compare --sweep-limit --json`: the format version, the command and mode, every row
 * (algorithm, limit, windowMs, keys, bytesPerKey) and each algorithm's slope in B per unit
 * of the limit with its growth (`O(1)` or `O(limit)`). Bytes rounded to 0.1, slopes to 0.001.
 */
export function memorySweepJson(sweep: MemorySweep): string {
  const document = {
    format: JSON_FORMAT_VERSION,
    command: 'compare',
    mode: 'sweep-limit',
    rows: sweep.rows.map((row) => ({ ...row, bytesPerKey: roundToPlaces(row.bytesPerKey, 1) })),
    slopes: sweep.slopes.map((slope) => ({
      ...slope,
      bytesPerUnit: slope.bytesPerUnit === null ? null : roundToPlaces(slope.bytesPerUnit, 3),
    })),
  };
  return `${JSON.stringify(document, null, 2)}\n`;
}
