import type { Decision } from './decision.js';

interface Denial {
  /** Local time until which this key denies `cost` and more. */
  until: number;
  cost: number;
  remaining: number;
  /** Local time at which the key is back to full quota. */
  resetAt: number;
}

/**
 * Denials remembered in process: a key that the shared store (Redis, any backend on the
 * seam) denied `cost` units is denied `cost` or more, without a network call, until the wait
 * the store gave has passed. Safe for every algorithm: with no admissions a key's wait only
 * shrinks as time passes, and admissions made meanwhile (by other nodes) only lengthen it,
 * so a cached denial is one the store would also give. Smaller costs still ask the store.
 * Only denials are cached, never admissions.
 *
 * Bounded by `maxKeys`; when full, the oldest entry goes. Times are the limiter's local
 * clock: waits are durations, so they carry over from the store's clock unchanged.
 */
export class DenyCache {
  private readonly entries = new Map<string, Denial>();

  constructor(
    private readonly maxKeys: number,
    private readonly limit: number,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** The cached denial of `cost` for `key` at local time `now`, if there is one. */
  lookup(key: string, cost: number, now: number): Decision | undefined {
    const denial = this.entries.get(key);
    if (denial === undefined) return undefined;
    if (now >= denial.until) {
      this.entries.delete(key);
      return undefined;
    }
    if (cost < denial.cost) return undefined;
    const retryAfterMs = Math.ceil(denial.until - now);
    return {
      allowed: false,
      limit: this.limit,
      remaining: denial.remaining,
      retryAfterMs,
      resetMs: Math.max(retryAfterMs, Math.ceil(denial.resetAt - now)),
    };
  }

  /** Remembers a denial the store gave at local time `now` (finite waits only). */
  remember(key: string, cost: number, decision: Decision, now: number): void {
    if (decision.allowed || !Number.isFinite(decision.retryAfterMs) || decision.retryAfterMs <= 0) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxKeys) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, {
      until: now + decision.retryAfterMs,
      cost,
      remaining: decision.remaining,
      resetAt: now + decision.resetMs,
    });
  }

  /** Forgets `key` (after a reset). */
  forget(key: string): void {
    this.entries.delete(key);
  }
}
