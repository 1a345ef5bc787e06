// Rewrites the generated output blocks of README.md and docs/*.md from their commands (how
// a block is marked: scripts/doc-outputs.ts). Run after a change to what a command prints:
// `npm run build && npm run doc-outputs`. test/docs-outputs.test.ts fails while one is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT, generateAll, rewrite } from './doc-outputs.js';

const generated = await generateAll();
for (const doc of new Set(generated.map(({ block }) => block.doc))) {
  const path = join(REPO_ROOT, doc);
  const before = readFileSync(path, 'utf8');
  const after = rewrite(
    before,
    generated.filter(({ block }) => block.doc === doc),
  );
  if (after !== before) writeFileSync(path, after);
  const stale = generated.filter(({ block, expected }) => block.doc === doc && block.current !== expected).length;
  console.log(`${doc}: ${stale === 0 ? 'up to date' : `rewrote ${stale} block${stale === 1 ? '' : 's'}`}`);
}
