// Writes scenarios/index.json (what `ratelab scenarios` lists) from the built-in YAML files.
// Run after adding or changing a built-in: `npm run scenario-index`.
// test/lab/builtin-index.test.ts fails while the shipped file is out of date.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUILTIN_INDEX_FILE, builtinIndexText } from '../src/scenario/builtin-index.js';
import { builtinScenarios } from '../src/scenario/builtins.js';

const path = fileURLToPath(new URL(`../${BUILTIN_INDEX_FILE}`, import.meta.url));
writeFileSync(path, builtinIndexText(builtinScenarios()));
console.log(`wrote ${BUILTIN_INDEX_FILE}`);
