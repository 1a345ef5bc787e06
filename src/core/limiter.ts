import type { Decision } from './decision.js';
import type { DecisionSource } from './decision-event.js';
import type { Algorithm, Limits, NamedLimits } from './policy.js';

// The types every limiter shares, whatever keeps its state: the one consumer type (what
// the middleware, the replay, the contract suite need) and the one limiter interface the
// memory, shared, Redis, approximate and cluster limiters all implement.

/** A result now, or a promise of it: the memory limiters answer at once, the others later. */
export type Awaitable<T> = T | Promise<T>;

/**
 * The one consumer type: anything that takes `cost` units (a whole number >= 0, default 1)
 * for `key` and answers with `R` (a {@link Decision} unless said otherwise), now or later.
 */
export interface Consumer<R = Decision> {
  consume(key: string, cost?: number): R | PromiseLike<R>;
}

/** Options of `limiter.wait(key, cost, options)`. */
export interface WaitOptions {
  /** Aborting it ends the wait: the promise rejects with `signal.reason` (an `AbortError` DOMException by default) and nothing is taken. */
  signal?: AbortSignal;
  /**
   * The longest the caller will wait, in ms (>= 0, default Infinity). A wait known to need
   * longer rejects at once with `WAIT_TOO_LONG`, without waiting it out.
   */
  maxWaitMs?: number;
}

/**
 * The one limiter interface: the same four calls, with the same (awaited) results, on every
 * limiter. The memory and shared limiters answer `consume`, `allow` and `reset` at once;
 * the Redis and cluster limiters with promises; the approximate limiter decides at once and
 * resets through Redis. Await each result and any of them fits.
 * - `consume`: takes `cost` units of `key` (a string); the decision, `D`.
 * - `allow`: `consume(key, 1).allowed`.
 * - `wait`: the decision that took `cost` units, once they could be taken (see `RateLimiter.wait`).
 * - `reset`: forgets `key`, so its next request starts with a full quota; whether it held state.
 * `policies` lists the limits it enforces, named (one, or several all at once); `limits` is
 * the one policy's, or of several the one with the least capacity; `algorithm` is the one
 * given at creation (a limit may name its own, see `policies`). Every limiter is a
 * {@link DecisionSource}: listeners of its decisions (`addDecisionListener`, the
 * `onDecision` option) and the count of those that threw (`listenerErrors`).
 */
export interface AsyncRateLimiter<D extends Decision = Decision> extends Consumer<D>, DecisionSource {
  readonly algorithm: Algorithm;
  readonly limits: Limits;
  readonly policies: readonly NamedLimits[];
  consume(key: string, cost?: number): Awaitable<D>;
  allow(key: string): Awaitable<boolean>;
  wait(key: string, cost?: number, options?: WaitOptions): Promise<D>;
  reset(key: string): Awaitable<boolean>;
}
