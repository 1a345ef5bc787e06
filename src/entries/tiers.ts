// PROTOTYPE (issue 10 prep): the proposed `ratelab/tiers` entry. Parsing a tiers file needs
// yaml and zod (~40 ms to import, see bench/import-time.mjs), so it lives apart from the core.
export { loadTiers, parseTiers } from '../tiers/load-tiers.js';
export type { TierSpec, TiersConfig } from '../tiers/load-tiers.js';
export { RateLimiterRegistry } from '../tiers/registry.js';
export type { RegistryOptions, TierDecision } from '../tiers/registry.js';
