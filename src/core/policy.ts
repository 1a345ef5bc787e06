import { formatDuration } from './duration.js';
import { RatelabError, describeValue } from './errors.js';
import { wholeNumber } from './options.js';
import { SLIDING_LOG_MAX_LIMIT, slidingLogBytes } from './sliding-log-size.js';

/** Every algorithm, in the order reports list them: the one list the `Algorithm` names come from. */
export const ALGORITHMS = ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'] as const;

/** The five algorithms, by the names used in configs, the CLI and reports. */
export type Algorithm = (typeof ALGORITHMS)[number];

/**
 * What a limiter enforces, the same for every algorithm so comparisons are fair:
 * at most `limit` units per `windowMs` milliseconds.
 * - `limit`: a positive whole number, at most 2^32 - 1.
 * - `windowMs`: a positive whole number of milliseconds; for token bucket and GCRA at most
 *   2^53 / capacity, for the sliding counter 2^53 / (2 * limit), so decisions stay exact.
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

/**
 * One limit of several on a key (a composite: every limit must admit a request, then every
 * limit takes its cost): a {@link Policy}, its own `algorithm` (default: the limiter's), and
 * a `name` for headers and reports (default: its window, `1s`, `1h`; letters, digits and
 * `._:-`, at most 64 characters, unique within the list).
 */
export interface LimitSpec extends Policy {
  algorithm?: Algorithm;
  name?: string;
}

/** What a limiter is given to enforce: one policy, or a list of limits (at least one) it enforces all at once. */
export type PolicyInput = Policy | readonly LimitSpec[];

/** One limit of a limiter, checked: its name, its algorithm and its {@link Limits}. A limiter of one policy has one. */
export interface NamedLimits extends Limits {
  readonly name: string;
  readonly algorithm: Algorithm;
}

/** Counters are stored in 32-bit columns. */
export const MAX_LIMIT = 0xffff_ffff;

/**
 * Why `limit` is too large for `algorithm` to keep, or undefined: only the sliding log's
 * memory grows with the limit, and it takes at most {@link SLIDING_LOG_MAX_LIMIT}.
 */
export function limitTooLarge(algorithm: Algorithm, limit: number): string | undefined {
  if (algorithm !== 'sliding-log' || limit <= SLIDING_LOG_MAX_LIMIT) return undefined;
  const mebibytes = Math.ceil(slidingLogBytes(limit) / 2 ** 20);
  return `the sliding log keeps one timestamp per admitted request, so a limit of ${limit} would need ${mebibytes} MiB per key; the most it takes is ${SLIDING_LOG_MAX_LIMIT} (use sliding-counter for large limits)`;
}

/**
 * Validates a policy and resolves its capacity for `algorithm`. Throws `INVALID_POLICY`
 * naming the field (`${where}.limit`) on 0, negatives, NaN, Infinity, fractions, burst < 1,
 * and `POLICY_TOO_LARGE` on a limit too large to keep (see {@link limitTooLarge}) or a window
 * too long to decide exactly (see {@link windowTooLong}).
 */
export function checkPolicy(policy: Policy, algorithm: Algorithm, where = 'policy'): Limits {
  if (typeof policy !== 'object' || policy === null) {
    throw new RatelabError(
      'INVALID_POLICY',
      `${where}: expected an object { limit, windowMs, burst? }, got ${describeValue(policy)}`,
      { field: where },
    );
  }
  const limit = wholeNumber(policy.limit, `${where}.limit`, 1, MAX_LIMIT, 'INVALID_POLICY');
  const tooLarge = limitTooLarge(algorithm, limit);
  if (tooLarge) throw new RatelabError('POLICY_TOO_LARGE', `${where}.limit: ${tooLarge}`, { field: `${where}.limit` });
  const windowMs = wholeNumber(policy.windowMs, `${where}.windowMs`, 1, Number.MAX_SAFE_INTEGER, 'INVALID_POLICY');
  const burst =
    policy.burst === undefined
      ? undefined
      : wholeNumber(policy.burst, `${where}.burst`, 1, MAX_LIMIT, 'INVALID_POLICY');
  const limits = { limit, windowMs, capacity: capacityOf(algorithm, limit, burst) };
  const tooLong = windowTooLong(algorithm, limits);
  if (tooLong)
    throw new RatelabError('POLICY_TOO_LARGE', `${where}.windowMs: ${tooLong}`, { field: `${where}.windowMs` });
  return limits;
}

/** The most units a key can hold at once: `burst ?? limit` for token bucket and GCRA, `limit` for the window algorithms. */
export function capacityOf(algorithm: Algorithm, limit: number, burst: number | undefined): number {
  return hasBucket(algorithm) ? (burst ?? limit) : limit;
}

/** Whether `algorithm` has a bucket whose capacity `burst` sets (token bucket, GCRA); the window algorithms ignore `burst`. */
export function hasBucket(algorithm: Algorithm): boolean {
  return algorithm === 'token-bucket' || algorithm === 'gcra';
}

/**
 * Why `limits.windowMs` is too long for `algorithm` to decide exactly, or undefined.
 * Token bucket and GCRA count in 1/windowMs of a token, so their state reaches
 * `capacity * windowMs`; the sliding counter weighs counts by the millisecond, up to
 * `2 * limit * windowMs`. Past 2^53 those are no longer exact integers and remaining,
 * retryAfterMs and decisions at the edge go wrong (4294967295 per day would). Fixed window
 * and sliding log only count, so any window is fine for them.
 */
export function windowTooLong(algorithm: Algorithm, limits: Limits): string | undefined {
  const largest = algorithm === 'sliding-counter' ? 2 * limits.limit : hasBucket(algorithm) ? limits.capacity : 0;
  if (largest === 0 || largest * limits.windowMs <= Number.MAX_SAFE_INTEGER) return undefined;
  const maxWindowMs = Math.floor(Number.MAX_SAFE_INTEGER / largest);
  const what = algorithm === 'sliding-counter' ? `a limit of ${limits.limit}` : `a capacity of ${limits.capacity}`;
  return `${algorithm} with ${what} is exact up to a window of ${maxWindowMs} ms (${formatDuration(maxWindowMs)}), got ${limits.windowMs}; use a shorter window with a proportionally smaller limit`;
}
