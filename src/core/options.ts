import { RatelabError, describeValue, type RatelabErrorCode } from './errors.js';

// Checks of what callers pass: options resolved once at create time, and the key and cost of
// every call. Each throws a RatelabError naming the field and quoting the value given.

/**
 * `value` when it is a whole number from `min` to `max` (both inclusive), else a `code`
 * error (default `INVALID_ARGUMENT`) naming `field` and quoting what was given.
 */
export function wholeNumber(
  value: unknown,
  field: string,
  min: number,
  max: number,
  code: RatelabErrorCode = 'INVALID_ARGUMENT',
): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RatelabError(
      code,
      `${field}: expected a whole number from ${min} to ${max}, got ${describeValue(value)}`,
      { field },
    );
  }
  return value;
}

/**
 * An optional option that must be a positive number (Infinity allowed): `fallback` when
 * absent, else `INVALID_ARGUMENT` naming `field`.
 */
export function positiveOption(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0)
    throw notPositive(field, 'a positive number', value);
  return value;
}

/**
 * An optional duration in milliseconds that must be positive and finite: `fallback` when
 * absent, else `INVALID_ARGUMENT` naming `field`.
 */
export function positiveMsOption(value: number | undefined, field: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw notPositive(field, 'a positive number of ms', value);
  return value;
}

/** The `INVALID_ARGUMENT` error for a bad option: `field: why, got value`. */
export function invalidOption(field: string, why: string, value: unknown): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${field}: ${why}, got ${describeValue(value)}`, { field });
}

function notPositive(field: string, what: string, value: unknown): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${field}: expected ${what}, got ${describeValue(value)}`, { field });
}

/** Throws `INVALID_COST` unless `cost` (units a decision takes) is a whole number >= 0; every limiter, memory or Redis, checks it so. */
export function checkCost(cost: number): void {
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new RatelabError('INVALID_COST', `cost: expected a whole number >= 0, got ${describeValue(cost)}`, {
      field: 'cost',
    });
  }
}

/**
 * Throws `INVALID_KEY` unless `key` is a string. A limiter's store files keys by value, so
 * anything else (an `undefined` from a missing header) would stand for no key at all.
 */
export function checkKey(key: string): void {
  if (typeof key !== 'string') {
    throw new RatelabError('INVALID_KEY', `key: expected a string, got ${describeValue(key)}`, { field: 'key' });
  }
}
