import { formatDuration } from './duration.js';
import { RatelabError, describeValue } from './errors.js';
import { wholeNumber } from './number-checks.js';

/** The five algorithms, by the names used in configs, the CLI and reports. */
export type Algorithm = 'token-bucket' | 'sliding-log' | 'sliding-counter' | 'fixed-window' | 'gcra';

/** Every algorithm, in the order reports list them. */
export const ALGORITHMS: readonly Algorithm[] = ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'];

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

/** Counters are stored in 32-bit columns. */
export const MAX_LIMIT = 0xffff_ffff;

/** The sliding log keeps one timestamp per admitted unit: beyond this limit a full key's ring would take over 8 MiB. */
export const SLIDING_LOG_MAX_LIMIT = 1 << 20;

/** Bytes of the sliding log's columns per key, timestamps aside: a 4-byte ring address, head and count, and a 1-byte size class. */
export const SLIDING_LOG_COLUMN_BYTES = 13;

/**
 * The most bytes of state the sliding log keeps for one key under `limit`: an 8-byte time
 * per unit of the limit (a full ring) and its columns. A key takes 8 B per timestamp its
 * ring has room for, which follows the units it admitted in the window (see SlidingLog).
 */
export function slidingLogBytes(limit: number): number {
  return 8 * limit + SLIDING_LOG_COLUMN_BYTES;
}

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
    throw new RatelabError('INVALID_POLICY', `${where}: expected an object { limit, windowMs, burst? }, got ${describeValue(policy)}`, { field: where });
  }
  const limit = wholeNumber(policy.limit, `${where}.limit`, 1, MAX_LIMIT, 'INVALID_POLICY');
  const tooLarge = limitTooLarge(algorithm, limit);
  if (tooLarge) throw new RatelabError('POLICY_TOO_LARGE', `${where}.limit: ${tooLarge}`, { field: `${where}.limit` });
  const windowMs = wholeNumber(policy.windowMs, `${where}.windowMs`, 1, Number.MAX_SAFE_INTEGER, 'INVALID_POLICY');
  const burst = policy.burst === undefined ? undefined : wholeNumber(policy.burst, `${where}.burst`, 1, MAX_LIMIT, 'INVALID_POLICY');
  const limits = { limit, windowMs, capacity: capacityOf(algorithm, limit, burst) };
  const tooLong = windowTooLong(algorithm, limits);
  if (tooLong) throw new RatelabError('POLICY_TOO_LARGE', `${where}.windowMs: ${tooLong}`, { field: `${where}.windowMs` });
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

/** Throws `INVALID_COST` unless `cost` (units a decision takes) is a whole number >= 0; every limiter, memory or Redis, checks it so. */
export function checkCost(cost: number): void {
  if (!Number.isSafeInteger(cost) || cost < 0) {
    throw new RatelabError('INVALID_COST', `cost: expected a whole number >= 0, got ${describeValue(cost)}`, { field: 'cost' });
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

/**
 * A node's share of `units` when `nodes` nodes each enforce a global quota alone:
 * `units / nodes` rounded down, so the shares never add up to more than the whole, but at
 * least 1 while any unit is left (a node that could admit nothing would starve its keys;
 * with more nodes than units the fleet then admits `nodes`, above the whole); 0 when none is.
 */
export function shareOf(units: number, nodes: number): number {
  return units <= 0 ? 0 : Math.max(1, Math.floor(units / nodes));
}

/**
 * Each node's share of a global `policy` when `nodes` nodes enforce it alone: the limit and
 * the burst each by {@link shareOf}; the window stays. The distributed simulator's `local`
 * strategy and the Redis limiter's `failMode: 'local'` both use it.
 */
export function nodeShare(policy: Policy, nodes: number): Policy {
  const limit = shareOf(policy.limit, nodes);
  return policy.burst === undefined ? { limit, windowMs: policy.windowMs } : { limit, windowMs: policy.windowMs, burst: shareOf(policy.burst, nodes) };
}

/** Throws `UNKNOWN_ALGORITHM` unless `name` is one of {@link ALGORITHMS}. */
export function checkAlgorithm(name: unknown, field = 'algorithm'): Algorithm {
  if (typeof name === 'string' && (ALGORITHMS as readonly string[]).includes(name)) return name as Algorithm;
  throw new RatelabError('UNKNOWN_ALGORITHM', `${field}: expected one of ${ALGORITHMS.join(', ')}, got ${describeValue(name)}`, { field });
}

/**
 * Whether `name` can name a policy (a tier) in the RateLimit headers: a Structured Field
 * String holds printable ASCII only (RFC 9651 3.3.3).
 */
export function isHeaderSafeName(name: string): boolean {
  return /^[\x20-\x7e]*$/.test(name);
}

