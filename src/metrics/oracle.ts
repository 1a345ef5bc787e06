import type { WindowLog } from './window-log.js';

/**
 * The exact answer a rate limiter should give: an exact sliding-window log. A request of
 * `cost` units at time `t` is admitted when the units admitted in `(t - windowMs, t]`,
 * plus `cost`, stay within `limit`. `log` holds what this oracle admitted for the key
 * (and is updated). Written apart from src/algorithms on purpose: it is what they are
 * checked against.
 */
export function oracleAdmits(log: WindowLog, t: number, cost: number, limit: number, windowMs: number): boolean {
  log.expire(t - windowMs);
  if (log.sum + cost > limit) return false;
  log.add(t, cost);
  return true;
}
