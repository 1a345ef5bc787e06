// PROTOTYPE (issue 10 prep): the proposed `ratelab` core entry, re-exporting from the
// modules where they live today so nothing moves yet. Built beside the real entries and
// measured by bench/import-time.mjs; not in package.json "exports" until issue 10 lands.
// It must stay free of third-party imports (yaml, zod, ioredis ...): see .dependency-cruiser.cjs.
export { ALGORITHMS, MAX_LIMIT, checkAlgorithm, checkPolicy } from '../policy.js';
export type { Algorithm, Limits, Policy } from '../policy.js';
export type { Decision } from '../decision.js';
export { createLimiter } from '../memory/limiter.js';
export type { LimiterOptions, RateLimiter } from '../memory/limiter.js';
export { ManualClock, systemClock } from '../clock.js';
export type { Clock, ClockSource } from '../clock.js';
export { RatelabError } from '../errors.js';
export type { RatelabErrorCode } from '../errors.js';
export { formatDuration, parseDuration } from '../duration.js';
export { SLIDING_LOG_MAX_LIMIT } from '../algorithms/sliding-log.js';
export { RateLimiterRegistry } from '../tiers/registry.js';
export type { RegistryOptions, TierDecision } from '../tiers/registry.js';
export type { TierSpec, TiersConfig } from '../tiers/load-tiers.js';
