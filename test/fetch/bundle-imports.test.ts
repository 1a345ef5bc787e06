// Issue 28's "done when": `import('ratelab')` and `import('ratelab/fetch')` reach no Node
// built-in and no package, checked on the built bundles (ESM and CommonJS) a bundler for
// Workers would take, not on the sources: every file reachable from the entry through its
// relative imports is read, and any other specifier (`node:x`, `x`, `@scope/x`) fails.
// ratelab/fetch's files must not name `process` either (workerd without Node compatibility
// has none). The sources' rule is .dependency-cruiser.cjs `fetch-loads-no-node-builtin`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const lib = fileURLToPath(new URL('../../dist/lib/', import.meta.url));

/** Every module specifier of a bundle: static and dynamic imports, re-exports, require(). */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)(["'])([^"'\n]+)\1/g;

/** The files reachable from `entry` by relative imports, and every other specifier met, with the file naming it. */
function walkBundle(entry: string): { files: string[]; foreign: { file: string; specifier: string }[] } {
  const seen = new Set<string>();
  const foreign: { file: string; specifier: string }[] = [];
  const queue = [join(lib, entry)];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, , specifier = ''] of readFileSync(file, 'utf8').matchAll(SPECIFIER)) {
      if (specifier.startsWith('./') || specifier.startsWith('../')) queue.push(join(dirname(file), specifier));
      else foreign.push({ file: relative(lib, file), specifier });
    }
  }
  return { files: [...seen].map((file) => relative(lib, file)), foreign };
}

beforeAll(() => {
  if (!existsSync(join(lib, 'fetch.js'))) throw new Error('dist/lib/ is not built: run npm run build');
});

describe.each([
  ['ratelab', 'index.js'],
  ['ratelab', 'index.cjs'],
  ['ratelab/fetch', 'fetch.js'],
  ['ratelab/fetch', 'fetch.cjs'],
])('%s (dist/lib/%s)', (entry, bundle) => {
  it('reaches no node: module and no package', () => {
    const { files, foreign } = walkBundle(bundle);
    // The walk sees the chunks: the entry and the chunks it splits into.
    expect(files.length).toBeGreaterThan(1);
    expect(foreign).toEqual([]);
  });
});

it.each(['fetch.js', 'fetch.cjs'])(
  'ratelab/fetch (dist/lib/%s) names no `process` in any file it reaches',
  (bundle) => {
    const named = walkBundle(bundle).files.filter((file) => /\bprocess\b/.test(readFileSync(join(lib, file), 'utf8')));
    expect(named).toEqual([]);
  },
);

describe('the walk', () => {
  it('sees what it forbids: ratelab/http reaches node:net (its trustProxy lists), ratelab/tiers the yaml package', () => {
    expect(walkBundle('http.js').foreign.map((found) => found.specifier)).toContain('node:net');
    expect(walkBundle('tiers.cjs').foreign.map((found) => found.specifier)).toEqual(expect.arrayContaining(['yaml']));
  });
});
