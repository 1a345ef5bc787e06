// The public API of ratelab. Everything a user may import is listed here by name.
export { ALGORITHMS, MAX_LIMIT, checkAlgorithm, checkPolicy } from './policy.js';
export type { Algorithm, Limits, Policy } from './policy.js';
export type { Decision } from './decision.js';
export { createLimiter } from './limiter.js';
export type { LimiterOptions, RateLimiter } from './limiter.js';
export { ManualClock, systemClock } from './clock.js';
export type { Clock, ClockSource } from './clock.js';
export { RatelabError } from './errors.js';
export type { RatelabErrorCode } from './errors.js';
export { formatDuration, parseDuration } from './duration.js';
export { SLIDING_LOG_MAX_LIMIT } from './algorithms/sliding-log.js';
export { loadTiers, parseTiers } from './tiers/load-tiers.js';
export type { TierSpec, TiersConfig } from './tiers/load-tiers.js';
export { RateLimiterRegistry } from './tiers/registry.js';
export type { RegistryOptions, TierDecision } from './tiers/registry.js';
