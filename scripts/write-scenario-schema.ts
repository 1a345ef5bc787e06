// Writes scenarios/scenario.schema.json from the zod schema (src/scenario/schema.ts).
// Run after changing the scenario format: `npm run schema`. test/lab/authoring.test.ts
// fails while the shipped file is out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCENARIO_SCHEMA_FILE, scenarioJsonSchemaText } from '../src/scenario/json-schema.js';

const path = fileURLToPath(new URL(`../${SCENARIO_SCHEMA_FILE}`, import.meta.url));
writeFileSync(path, scenarioJsonSchemaText());
console.log(`wrote ${SCENARIO_SCHEMA_FILE}`);
