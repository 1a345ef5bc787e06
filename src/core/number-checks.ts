import { RatelabError, describeValue, type RatelabErrorCode } from './errors.js';

/**
 * `value` when it is a whole number from `min` to `max` (both inclusive), else a `code`
 * error (default `INVALID_ARGUMENT`) naming `field` and quoting what was given.
 */
export function wholeNumber(value: unknown, field: string, min: number, max: number, code: RatelabErrorCode = 'INVALID_ARGUMENT'): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RatelabError(code, `${field}: expected a whole number from ${min} to ${max}, got ${describeValue(value)}`, { field });
  }
  return value;
}

/**
 * An optional option that must be a positive number (Infinity allowed): `fallback` when
 * absent, else `INVALID_ARGUMENT` naming `field`.
 */
export function positiveOption(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0) throw notPositive(field, 'a positive number', value);
  return value;
}

/**
 * An optional duration in milliseconds that must be positive and finite: `fallback` when
 * absent, else `INVALID_ARGUMENT` naming `field`.
 */
export function positiveMsOption(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw notPositive(field, 'a positive number of ms', value);
  return value;
}

function notPositive(field: string, what: string, value: unknown): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${field}: expected ${what}, got ${describeValue(value)}`, { field });
}
