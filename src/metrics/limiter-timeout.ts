import { formatDuration } from '../core/duration.js';
import { timeBound } from '../core/time-bound.js';
import { RatelabError } from '../core/errors.js';

/**
 * How long the lab waits for one call into a user's limiter module (loading it, its
 * factory, each async `consume`) unless told otherwise (`--limiter-timeout`): far above
 * any store round trip a limiter should make, short enough that a hang is told in seconds.
 */
export const DEFAULT_LIMITER_TIMEOUT_MS = 5000;

/**
 * How long loading a module (its top-level await) and its factory's promise may take: the
 * larger of the call bound and {@link DEFAULT_LIMITER_TIMEOUT_MS}, since an import compiles
 * the module and all it imports (well over 100 ms on a busy machine), which a bound chosen
 * for one call need not allow for.
 */
export function loadTimeoutMs(callTimeoutMs: number): number {
  return Math.max(callTimeoutMs, DEFAULT_LIMITER_TIMEOUT_MS);
}

/**
 * `promise`, or `LIMITER_TIMEOUT` naming `module` and `call()` when it has not settled within
 * `timeoutMs`. The timer is ref'd on purpose: a promise nothing will ever settle would
 * otherwise let the event loop empty and Node end the process with exit 13 and no word. It
 * is cleared as soon as the promise settles, so it never holds a finished process open.
 */
export function settleWithin<T>(
  promise: PromiseLike<T>,
  timeoutMs: number,
  module: string,
  call: () => string,
): Promise<T> {
  return timeBound(promise, timeoutMs, () => hangError(module, call(), timeoutMs));
}

function hangError(module: string, call: string, timeoutMs: number): RatelabError {
  return new RatelabError(
    'LIMITER_TIMEOUT',
    `${module}: ${call} did not settle within ${formatDuration(timeoutMs)}: the module hangs (bound: --limiter-timeout)`,
    { field: module },
  );
}
