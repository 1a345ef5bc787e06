import type { Meter } from '../algorithms/index.js';
import type { Limits } from './policy.js';

/**
 * The answer to one request. All times are whole milliseconds, rounded up.
 * - `allowed`: whether the request was admitted (a denied request changes no state).
 * - `limit`: the most units the key can hold at once (`burst ?? limit` for token bucket
 *   and GCRA, `limit` for the window algorithms); Infinity for an unlimited tier.
 * - `remaining`: units that could still be admitted right now, after this decision.
 * - `retryAfterMs`: 0 when admitted; otherwise the wait until this same request would be
 *   admitted (if nothing else arrives), or Infinity when its cost exceeds what the policy
 *   can ever admit.
 * - `resetMs`: the wait until the key is back to its full quota.
 */
export interface Decision {
  allowed: boolean;
  limit: number;
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
}

/**
 * Takes `cost` units from `slot` at `now` (the slot already refreshed to it) and answers
 * in full. One function for every limiter that keeps its state in meter columns (memory,
 * shared), so their decisions cannot drift apart.
 */
export function meterDecision(meter: Meter, limits: Limits, slot: number, now: number, cost: number): Decision {
  const allowed = meter.take(slot, now, cost);
  return {
    allowed,
    limit: limits.capacity,
    remaining: meter.remaining(slot, now),
    retryAfterMs: allowed ? 0 : meter.waitFor(slot, now, cost),
    resetMs: meter.untilFull(slot, now),
  };
}
