import { createLimiter, type RateLimiter } from '../memory/limiter.js';

/**
 * A client-side throttle in virtual time, as `throttle` from `ratelab` runs it for real:
 * a sliding log of `limit` per `windowMs` per key (exact: the published limit, never
 * exceeded in any window), requests of a key served first come first served. Reservations
 * must come in the order of their `t` (a source pops wants in time order), so each is
 * decided after every earlier one of its key, as a waiting caller is.
 */
export class ClientThrottle {
  private now = 0;
  private readonly limiter: RateLimiter;
  /** Per key, the time of its latest reservation: a later want is served no earlier. */
  private readonly latest = new Map<string, number>();

  constructor(limit: number, windowMs: number) {
    // idleMs Infinity: reservations move the clock back and forth between keys, and no
    // key's log may be dropped as idle because another key's reservation ran ahead.
    this.limiter = createLimiter('sliding-log', { limit, windowMs }, { clock: () => this.now, idleMs: Infinity });
  }

  /** The first time at or after `t` (and after the key's earlier reservations) that `cost` units fit; takes them then. Infinity when they never fit. */
  reserve(key: string, cost: number, t: number): number {
    let at = Math.max(t, this.latest.get(key) ?? t);
    for (;;) {
      this.now = at;
      const decision = this.limiter.consume(key, cost);
      if (decision.allowed) break;
      if (decision.retryAfterMs === Infinity) return Infinity;
      at += decision.retryAfterMs;
    }
    this.latest.set(key, at);
    return at;
  }
}
