import { roundToPlaces } from '../round.js';

/**
 * Version of the JSON reports (`compare`, `attack`, `distributed`); bumped when a field
 * changes meaning or name. 2: the rows' `errorRate` (a percent) became `errorPercent`, and
 * rows gained `labels`.
 */
export const JSON_FORMAT_VERSION = 2;

/**
 * A row as the JSON report writes it: `errorRate` (a percent inside the lab) renamed
 * `errorPercent` so name and unit agree, in the same place among the fields, rounded to
 * 6 places.
 */
export function withErrorPercent<T extends { errorRate: number }>(
  row: T,
): Omit<T, 'errorRate'> & { errorPercent: number } {
  const entries = Object.entries(row).map(([field, value]) =>
    field === 'errorRate' ? ['errorPercent', roundToPlaces(row.errorRate, 6)] : [field, value],
  );
  return Object.fromEntries(entries) as Omit<T, 'errorRate'> & { errorPercent: number };
}
