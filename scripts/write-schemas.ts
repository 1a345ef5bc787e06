// Writes the shipped JSON Schemas from their zod schemas: scenarios/scenario.schema.json
// (src/scenario/schema.ts) and tiers.schema.json (src/tiers/schema.ts). Run after changing
// either format: `npm run schema`. test/lab/authoring.test.ts and test/tiers/json-schema.test.ts
// fail while a shipped file is out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCENARIO_SCHEMA_FILE, scenarioJsonSchemaText } from '../src/scenario/json-schema.js';
import { TIERS_SCHEMA_FILE, tiersJsonSchemaText } from '../src/tiers/json-schema.js';

for (const [file, text] of [
  [SCENARIO_SCHEMA_FILE, scenarioJsonSchemaText()],
  [TIERS_SCHEMA_FILE, tiersJsonSchemaText()],
] as const) {
  writeFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), text);
  console.log(`wrote ${file}`);
}
