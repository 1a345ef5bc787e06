import { z } from 'zod';
import { scenarioFileSchema } from './schema.js';

/** Where the shipped JSON Schema lives, from the package root (a YAML language server reads it). */
export const SCENARIO_SCHEMA_FILE = 'scenarios/scenario.schema.json';

/**
 * The JSON Schema (draft 2020-12) of a scenario file, as written (durations and rates
 * still text), generated from the zod schema so the two cannot drift. Cross-field rules
 * (start before end, a burst within the duration) are checked only by ratelab itself.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(scenarioFileSchema, { io: 'input', unrepresentable: 'any' });
  return {
    ...schema,
    title: 'ratelab scenario',
    description: 'A traffic scenario for ratelab compare, distributed and attack (docs/lab.md, "Scenario files").',
  };
}

/** {@link scenarioJsonSchema} as the text of the shipped file: 2-space JSON with a final newline. */
export function scenarioJsonSchemaText(): string {
  return `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`;
}
