/**
 * The extra wait a process adds to a `retryAfterMs` before asking a shared (Redis) limiter
 * again: uniform in [0, max(1, retryAfterMs / 5)) ms. Every process sharing a key hears
 * the same `retryAfterMs`, so without it their waiters would all return at one instant and
 * all but one be denied again; up to a fifth of the wait spreads them while costing a
 * waiter at most that fifth. Whole ms are not needed: timers round as they will.
 */
export function spreadRetry(retryAfterMs: number): number {
  return Math.random() * Math.max(1, retryAfterMs / 5);
}
