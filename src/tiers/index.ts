// `ratelab/tiers`: tiers files (YAML or JSON) parsed and validated. Apart from the core
// because the parsers load yaml and zod (hundreds of ms; bench/import-time.mjs).

/** Reads and validates a tiers file; throws `FILE_NOT_FOUND`, `FILE_UNREADABLE` or `INVALID_TIERS` listing every problem by line. */
export { loadTiers } from './load-tiers.js';
/** Validates the text of a tiers file (`source` names it in messages); throws `INVALID_TIERS`. */
export { parseTiers } from './load-tiers.js';
/** What they return: `tiers` (name -> algorithm and policy in ms, a list of limits for a tier of several, or `unlimited`), `clients`, `default`. */
export type { TierSpec, TiersConfig } from './types.js';
