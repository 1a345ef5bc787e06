import type { WindowLedger } from './window-ledger.js';

/**
 * The exact answer a rate limiter should give: an exact sliding-window log. A request of
 * `cost` units for the key in `slot` is admitted when the units the oracle itself admitted
 * for that key in `(t - windowMs, t]`, plus `cost`, stay within `limit`. The ledger must
 * already be expired to `t - windowMs`; the caller logs what was admitted. Written apart
 * from src/algorithms on purpose: it is what they are checked against.
 */
export function oracleAdmits(ledger: WindowLedger, slot: number, cost: number, limit: number): boolean {
  return (ledger.oracleSum[slot] as number) + cost <= limit;
}
