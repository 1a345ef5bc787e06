import type { Decision } from '../core/decision.js';
import { RatelabError, describeValue } from '../core/errors.js';
import type { AsyncRateLimiter } from '../core/limiter.js';
import { checkCost } from '../core/options.js';
import { checkWaitOptions, type WaitOptions } from './key-waiters.js';

/** What throttle needs of a limiter: the `wait` of {@link AsyncRateLimiter} (every limiter has it). */
export type Waitable = Pick<AsyncRateLimiter, 'wait'>;

/** Options of {@link throttle}; `key` and `cost` are values or functions of the call's arguments. */
export interface ThrottleOptions<A extends unknown[]> {
  /** Whose slots the calls take (a limiter with `wait`). */
  limiter: Waitable;
  /** The key a call counts against (default `'throttle'`): e.g. `(tenant) => tenant`. */
  key?: string | ((...args: A) => string);
  /** Units a call takes (default 1; a number must be whole and >= 0, else `INVALID_COST` when throttle is made): e.g. `(prompt) => estimateTokens(prompt)`. */
  cost?: number | ((...args: A) => number);
  /** The longest a call waits for its slot, in ms (>= 0, default Infinity; NaN or negative: `INVALID_ARGUMENT` when throttle is made); past it the call rejects with `WAIT_TOO_LONG` and `fn` is not called. */
  maxWaitMs?: number;
  /** Aborting it rejects every call still waiting (with `signal.reason`); they take nothing. */
  signal?: AbortSignal;
}

/** The default key of {@link throttle}: one shared quota for every call. */
const DEFAULT_KEY = 'throttle';

/**
 * Wraps `fn` so that each call first waits for its slot (`limiter.wait(key, cost)`), then
 * calls `fn` with the same arguments and resolves with its result. Calls of one key start
 * in the order they were made; the limiter decides how many start per window (how long
 * `fn` takes is not limited: that is concurrency, not rate). A wait that fails (too long,
 * aborted, cost over capacity) rejects the call without calling `fn`.
 */
export function throttle<A extends unknown[], R>(
  fn: (...args: A) => R,
  options: ThrottleOptions<A>,
): (...args: A) => Promise<Awaited<R>> {
  checkThrottleOptions(fn, options);
  const { limiter, key = DEFAULT_KEY, cost = 1, maxWaitMs, signal } = options;
  const waitOptions: WaitOptions = {
    ...(maxWaitMs === undefined ? {} : { maxWaitMs }),
    ...(signal === undefined ? {} : { signal }),
  };
  return function throttled(this: unknown, ...args: A): Promise<Awaited<R>> {
    let slot: Promise<Decision>;
    try {
      slot = limiter.wait(
        typeof key === 'function' ? key(...args) : key,
        typeof cost === 'function' ? cost(...args) : cost,
        waitOptions,
      );
    } catch (error) {
      return Promise.reject(error);
    }
    return slot.then(() => fn.apply(this, args) as Awaited<R>);
  };
}

function checkThrottleOptions<A extends unknown[]>(fn: unknown, options: ThrottleOptions<A>): void {
  if (typeof fn !== 'function') {
    throw new RatelabError('INVALID_ARGUMENT', `throttle(fn): expected a function, got ${describeValue(fn)}`, {
      field: 'fn',
    });
  }
  if (typeof options !== 'object' || options === null || typeof options.limiter?.wait !== 'function') {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `limiter: expected a limiter with wait() (createLimiter, createRedisLimiter), got ${describeValue(options?.limiter)}`,
      { field: 'limiter' },
    );
  }
  for (const field of ['key', 'cost'] as const) {
    const value = options[field];
    const expected = field === 'key' ? 'string' : 'number';
    if (value !== undefined && typeof value !== 'function' && typeof value !== expected) {
      throw new RatelabError(
        'INVALID_ARGUMENT',
        `${field}: expected a ${expected} or a function of the arguments, got ${describeValue(value)}`,
        { field },
      );
    }
  }
  // What every call would be refused for is refused now, by the checks wait() makes.
  if (typeof options.cost === 'number') checkCost(options.cost);
  checkWaitOptions({ maxWaitMs: options.maxWaitMs, signal: options.signal });
}
