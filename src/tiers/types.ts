// The shape of a tiers file once validated. Types only, so the core entry (which exports
// RateLimiterRegistry) can name them without loading the parser's yaml and zod.
import type { Algorithm, Policy } from '../core/policy.js';

/** A tier: a limiter to build, or `unlimited` (always admits). */
export type TierSpec = 'unlimited' | { algorithm: Algorithm; policy: Policy };

/** A validated tiers file (what `loadTiers`/`parseTiers` return, or a program builds). */
export interface TiersConfig {
  /** Tier name -> tier. */
  tiers: Record<string, TierSpec>;
  /** Client id -> tier name. */
  clients: Record<string, string>;
  /** The tier of every client not listed in `clients`. */
  default: string;
}
