import { z } from 'zod';
import { tiersFileSchema } from './schema.js';

/** Where the shipped JSON Schema of tiers files lives, from the package root (a YAML language server reads it). */
export const TIERS_SCHEMA_FILE = 'tiers.schema.json';

/**
 * The JSON Schema (draft 2020-12) of a tiers file, as written (windows still text),
 * generated from the zod schema so the two cannot drift. What only ratelab checks: the
 * rules across fields (a tier has the single fields or a `limits` list, each limit's bounds
 * for its algorithm, unique names in a list, `default` and `clients` naming tiers that exist).
 */
export function tiersJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(tiersFileSchema, { io: 'input', unrepresentable: 'any' });
  return {
    ...schema,
    title: 'ratelab tiers',
    description:
      'Tiers of a rate limiter: each tier one limit or several enforced at once (`limits`), and which client gets which (README, "Tiers").',
  };
}

/** {@link tiersJsonSchema} as the text of the shipped file: 2-space JSON with a final newline. */
export function tiersJsonSchemaText(): string {
  return `${JSON.stringify(tiersJsonSchema(), null, 2)}\n`;
}
