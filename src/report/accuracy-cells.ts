import type { ReplayMetrics } from '../metrics/recorder.js';
import { roundToPlaces } from './round.js';

/** The figures of a row that every per-row table (CSV, HTML) shows about accuracy. */
export type AccuracyFigures = Pick<
  ReplayMetrics,
  'offered' | 'admitted' | 'denied' | 'falseAdmits' | 'falseDenials' | 'errorRate' | 'worstWindowRatio'
>;

/** Column names of {@link accuracyCells}, in its order. */
export const ACCURACY_COLUMNS = [
  'offered',
  'admitted',
  'denied',
  'false admits',
  'false denials',
  'error %',
  'worst window / limit',
] as const;

/** The CSV column names of {@link accuracyCells}, in its order (stable: scripts depend on them). */
export const ACCURACY_CSV_COLUMNS = [
  'offered',
  'admitted',
  'denied',
  'false_admits',
  'false_denials',
  'error_percent',
  'worst_window_ratio',
] as const;

/**
 * The row's accuracy cells in {@link ACCURACY_COLUMNS} (and {@link ACCURACY_CSV_COLUMNS}) order, so
 * the CSV and HTML tables of `compare` and `distributed` cannot drift apart. `errorDigits`:
 * decimals of the error %.
 */
export function accuracyCells(row: AccuracyFigures, errorDigits: number): number[] {
  return [
    row.offered,
    row.admitted,
    row.denied,
    row.falseAdmits,
    row.falseDenials,
    roundToPlaces(row.errorRate, errorDigits),
    roundToPlaces(row.worstWindowRatio, 4),
  ];
}
