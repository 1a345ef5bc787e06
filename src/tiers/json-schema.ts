import { jsonSchemaOf, jsonSchemaText } from '../config/json-schema.js';
import { tiersFileSchema } from './schema.js';

/** Where the shipped JSON Schema of tiers files lives, from the package root (a YAML language server reads it). */
export const TIERS_SCHEMA_FILE = 'tiers.schema.json';

/**
 * The JSON Schema (draft 2020-12) of a tiers file (see `jsonSchemaOf`). What only ratelab
 * checks: the rules across fields (a tier has the single fields or a `limits` list, each
 * limit's bounds for its algorithm, unique names in a list, `default` and `clients` naming
 * tiers that exist).
 */
export function tiersJsonSchema(): Record<string, unknown> {
  return jsonSchemaOf(
    tiersFileSchema,
    'ratelab tiers',
    'Tiers of a rate limiter: each tier one limit or several enforced at once (`limits`), and which client gets which (README, "Tiers").',
  );
}

/** {@link tiersJsonSchema} as the text of the shipped file. */
export function tiersJsonSchemaText(): string {
  return jsonSchemaText(tiersJsonSchema());
}
