import { jsonSchemaOf, jsonSchemaText } from '../config/json-schema.js';
import { scenarioFileSchema } from './schema.js';

/** Where the shipped JSON Schema lives, from the package root (a YAML language server reads it). */
export const SCENARIO_SCHEMA_FILE = 'scenarios/scenario.schema.json';

/**
 * The JSON Schema (draft 2020-12) of a scenario file (see `jsonSchemaOf`). Cross-field rules
 * (start before end, a burst within the duration) are checked only by ratelab itself.
 */
export function scenarioJsonSchema(): Record<string, unknown> {
  return jsonSchemaOf(
    scenarioFileSchema,
    'ratelab scenario',
    'A traffic scenario for ratelab compare, distributed and attack (docs/lab.md, "Scenario files").',
  );
}

/** {@link scenarioJsonSchema} as the text of the shipped file. */
export function scenarioJsonSchemaText(): string {
  return jsonSchemaText(scenarioJsonSchema());
}
