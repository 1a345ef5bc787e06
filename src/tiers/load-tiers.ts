import { parseYamlConfig, readText } from '../config/yaml-config.js';
import type { Algorithm } from '../core/policy.js';
import { toLimitSpec, validateTiers, type TiersFile } from './schema.js';
import type { TierSpec, TiersConfig } from './types.js';

/**
 * Reads and validates a tiers file (YAML, or JSON, which YAML includes). Throws
 * `FILE_NOT_FOUND` / `FILE_UNREADABLE`, or `INVALID_TIERS` whose `problems` list every
 * problem as `file:line: tiers.free.limit: expected a positive integer up to ..., got -3`.
 * `label` names the file in those messages (default: `path`), e.g. as the user typed it.
 */
export function loadTiers(path: string, label = path): TiersConfig {
  return parseTiers(readText(path, label), label);
}

/** Validates the text of a tiers file; `source` names it in messages. */
export function parseTiers(text: string, source = 'tiers'): TiersConfig {
  const file = parseYamlConfig(text, source, 'INVALID_TIERS', validateTiers);
  const tiers: Record<string, TierSpec> = {};
  for (const [name, tier] of Object.entries(file.tiers)) {
    tiers[name] = tier === 'unlimited' ? 'unlimited' : toSpec(tier);
  }
  return { tiers, clients: file.clients, default: file.default };
}

/** A validated tier as the registry builds it: one policy, or its `limits` (the tier's algorithm the default of each). */
function toSpec(tier: Exclude<TiersFile['tiers'][string], 'unlimited'>): TierSpec {
  const mode = tier.mode === undefined ? {} : { mode: tier.mode };
  if (tier.limits !== undefined) {
    const policy = tier.limits.map(toLimitSpec);
    // Validated: without a tier algorithm, every entry has its own.
    return { algorithm: (tier.algorithm ?? policy[0]?.algorithm) as Algorithm, policy, ...mode };
  }
  const limits = { limit: tier.limit as number, windowMs: tier.window as number };
  return {
    algorithm: tier.algorithm as Algorithm,
    policy: tier.burst === undefined ? limits : { ...limits, burst: tier.burst },
    ...mode,
  };
}
