import { RatelabError, describeValue } from './errors.js';

/** The five algorithms, by the names used in configs, the CLI and reports. */
export type Algorithm = 'token-bucket' | 'sliding-log' | 'sliding-counter' | 'fixed-window' | 'gcra';

/** Every algorithm, in the order reports list them. */
export const ALGORITHMS: readonly Algorithm[] = ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'];

/**
 * What a limiter enforces, the same for every algorithm so comparisons are fair:
 * at most `limit` units per `windowMs` milliseconds.
 * - `limit`: a positive whole number, at most 2^32 - 1.
 * - `windowMs`: a positive whole number of milliseconds.
 * - `burst` (token bucket and GCRA only): the bucket's capacity, a whole number >= 1;
 *   default `limit`. The window algorithms ignore it.
 */
export interface Policy {
  limit: number;
  windowMs: number;
  burst?: number;
}

/** A validated policy with its capacity resolved. */
export interface Limits {
  readonly limit: number;
  readonly windowMs: number;
  /** The most units a key can hold at once: `burst ?? limit` for buckets, `limit` for windows. */
  readonly capacity: number;
}

/** Counters are stored in 32-bit columns. */
export const MAX_LIMIT = 0xffff_ffff;

/**
 * Validates a policy and resolves its capacity for `algorithm`. Throws `INVALID_POLICY`
 * naming the field (`${where}.limit`) on 0, negatives, NaN, Infinity, fractions, burst < 1.
 */
export function checkPolicy(policy: Policy, algorithm: Algorithm, where = 'policy'): Limits {
  if (typeof policy !== 'object' || policy === null) {
    throw new RatelabError('INVALID_POLICY', `${where}: expected an object { limit, windowMs, burst? }, got ${describeValue(policy)}`, { field: where });
  }
  const limit = wholeNumber(policy.limit, `${where}.limit`, MAX_LIMIT);
  const windowMs = wholeNumber(policy.windowMs, `${where}.windowMs`, Number.MAX_SAFE_INTEGER);
  const burst = policy.burst === undefined ? limit : wholeNumber(policy.burst, `${where}.burst`, MAX_LIMIT);
  const bucket = algorithm === 'token-bucket' || algorithm === 'gcra';
  return { limit, windowMs, capacity: bucket ? burst : limit };
}

function wholeNumber(value: unknown, field: string, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new RatelabError('INVALID_POLICY', `${field}: expected a whole number from 1 to ${max}, got ${describeValue(value)}`, { field });
  }
  return value;
}

/** Throws `UNKNOWN_ALGORITHM` unless `name` is one of {@link ALGORITHMS}. */
export function checkAlgorithm(name: unknown, field = 'algorithm'): Algorithm {
  if (typeof name === 'string' && (ALGORITHMS as readonly string[]).includes(name)) return name as Algorithm;
  throw new RatelabError('UNKNOWN_ALGORITHM', `${field}: expected one of ${ALGORITHMS.join(', ')}, got ${describeValue(name)}`, { field });
}
