import type { Decision } from '../core/decision.js';
import { RatelabError, describeValue } from '../core/errors.js';
import { createLimiter, type LimiterOptions, type RateLimiter } from '../memory/limiter.js';
import { checkCost } from '../core/options.js';
import type { TierMode, TierSpec, TiersConfig } from './types.js';

/** A decision, with the tier that made it. */
export interface TierDecision extends Decision {
  tier: string;
}

/**
 * Options of {@link RateLimiterRegistry}: limiter options shared by every tier (each tier's
 * limiter is named after its tier and enforces unless the tier is in `mode: shadow`), and a resolver.
 */
export interface RegistryOptions extends LimiterOptions {
  /**
   * Maps a client id to a tier name; return undefined to fall back to the file's
   * `clients` map and then `default`.
   */
  resolve?: (clientId: string) => string | undefined;
}

/**
 * One limiter per tier; each client is decided by the limiter of its tier (the resolver's
 * answer, else the file's `clients` entry, else `default`). An `unlimited` tier always
 * admits, with `limit` and `remaining` Infinity.
 */
export class RateLimiterRegistry {
  private readonly limiters = new Map<string, RateLimiter | 'unlimited'>();
  private readonly modes = new Map<string, TierMode>();
  private readonly clients: Map<string, string>;
  private readonly fallback: string;
  private readonly resolve: ((clientId: string) => string | undefined) | undefined;

  constructor(config: TiersConfig, options: RegistryOptions = {}) {
    const { resolve, ...limiterOptions } = options;
    for (const [name, spec] of Object.entries(config.tiers)) {
      // `enforce: false` among the shared options puts every tier in shadow.
      const shadow = spec !== 'unlimited' && (spec.mode === 'shadow' || limiterOptions.enforce === false);
      this.modes.set(name, shadow ? 'shadow' : 'enforce');
      this.limiters.set(name, build(name, spec, { ...limiterOptions, enforce: !shadow }));
    }
    this.clients = new Map(Object.entries(config.clients));
    this.fallback = config.default;
    this.resolve = resolve;
    for (const name of [this.fallback, ...this.clients.values()]) this.checkTier(name, 'tiers config');
  }

  /** The names of the tiers, in file order. */
  get tiers(): string[] {
    return [...this.limiters.keys()];
  }

  /** The tier of `clientId`. Throws `UNKNOWN_TIER` if the resolver names a tier that does not exist. */
  tierOf(clientId: string): string {
    const chosen = this.resolve?.(clientId) ?? this.clients.get(clientId) ?? this.fallback;
    return this.checkTier(chosen, 'resolve()');
  }

  /**
   * Whether `clientId` is a client this registry was told about (the resolver names its
   * tier, or the file's `clients` lists it), not one that merely falls to `default`.
   */
  isClient(clientId: string): boolean {
    return this.resolve?.(clientId) !== undefined || this.clients.has(clientId);
  }

  /** The limiter of `tier`, or 'unlimited'. */
  limiterOf(tier: string): RateLimiter | 'unlimited' {
    return this.limiters.get(this.checkTier(tier, 'limiterOf()')) as RateLimiter | 'unlimited';
  }

  /** The mode of `tier`: `shadow` (its limiter lets every request through, see `TierMode`) or `enforce`. */
  modeOf(tier: string): TierMode {
    return this.modes.get(this.checkTier(tier, 'modeOf()')) as TierMode;
  }

  /** Shorthand for `consume(clientId, 1).allowed`. */
  allow(clientId: string): boolean {
    const limiter = this.limiterOf(this.tierOf(clientId));
    return limiter === 'unlimited' || limiter.allow(clientId);
  }

  /** Takes `cost` units for `clientId` from its tier's limiter. */
  consume(clientId: string, cost = 1): TierDecision {
    const tier = this.tierOf(clientId);
    const limiter = this.limiterOf(tier);
    if (limiter !== 'unlimited') return { ...limiter.consume(clientId, cost), tier };
    checkCost(cost);
    return { allowed: true, limit: Infinity, remaining: Infinity, retryAfterMs: 0, resetMs: 0, tier };
  }

  private checkTier(name: string, who: string): string {
    if (this.limiters.has(name)) return name;
    throw new RatelabError(
      'UNKNOWN_TIER',
      `${who}: no tier named ${describeValue(name)} (tiers: ${this.tiers.join(', ')})`,
      { field: 'tier' },
    );
  }
}

/**
 * A tier's limiter, named after the tier (its events' `limiter`); a tier in shadow builds it
 * with `enforce: false`, so it decides and counts as if enforcing and admits every request.
 */
function build(name: string, spec: TierSpec, options: LimiterOptions): RateLimiter | 'unlimited' {
  return spec === 'unlimited' ? spec : createLimiter(spec.algorithm, spec.policy, { ...options, name });
}
