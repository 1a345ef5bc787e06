// The shape of a tiers file once validated. Types only, so the core entry (which exports
// RateLimiterRegistry) can name them without loading the parser's yaml and zod.
import type { Algorithm, PolicyInput } from '../core/policy.js';

/**
 * A tier: a limiter to build, or `unlimited` (always admits). `policy` is one policy, or a
 * list of limits enforced all at once (each entry may name its own algorithm; `algorithm`
 * is their default), as `createLimiter` takes them.
 */
export type TierSpec = 'unlimited' | { algorithm: Algorithm; policy: PolicyInput; mode?: TierMode };

/**
 * `enforce` (the default): the tier's limiter denies. `shadow`: it decides and counts as if
 * enforcing but lets every request through, reporting its denials as `shadow-denied`
 * (a limiter built with `enforce: false`), so a new limit can be watched before it is enforced.
 */
export type TierMode = 'enforce' | 'shadow';

/** A validated tiers file (what `loadTiers`/`parseTiers` return, or a program builds). */
export interface TiersConfig {
  /** Tier name -> tier. */
  tiers: Record<string, TierSpec>;
  /** Client id -> tier name. */
  clients: Record<string, string>;
  /** The tier of every client not listed in `clients`. */
  default: string;
}
