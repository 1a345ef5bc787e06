import { RatelabError, describeValue } from '../core/errors.js';

/** The `INVALID_ARGUMENT` error for a bad option: `field: why, got value`. */
export function invalidOption(field: string, why: string, value: unknown): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${field}: ${why}, got ${describeValue(value)}`, { field });
}
