import { parseYamlConfig, readText } from '../config/yaml-config.js';
import type { Algorithm, Policy } from '../core/policy.js';
import { validateTiers } from './schema.js';
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
    tiers[name] =
      tier === 'unlimited' ? 'unlimited' : { algorithm: tier.algorithm as Algorithm, policy: toPolicy(tier) };
  }
  return { tiers, clients: file.clients, default: file.default };
}

function toPolicy(tier: { limit: number; window: number; burst?: number | undefined }): Policy {
  return tier.burst === undefined
    ? { limit: tier.limit, windowMs: tier.window }
    : { limit: tier.limit, windowMs: tier.window, burst: tier.burst };
}
