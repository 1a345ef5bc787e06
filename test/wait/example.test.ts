// The README's "In front of someone else's API" example is examples/third-party-api.mjs,
// word for word, and it runs: against stand-in providers that answer 429 over their
// published limits, every call gets through and none is refused. Runs the built package
// (it imports `ratelab` by name), like test/entries.test.ts.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const example = readFileSync(join(root, 'examples/third-party-api.mjs'), 'utf8');

/** The code between the `// README:start` and `// README:end` lines of the example. */
const region = example.slice(
  example.indexOf('// README:start\n') + '// README:start\n'.length,
  example.indexOf('// README:end'),
);

/** The README section's first js code block. */
function readmeBlock(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf("## In front of someone else's API"));
  return /```js\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
}

beforeAll(() => {
  if (!existsSync(join(root, 'dist/lib/index.js'))) throw new Error('dist/lib/ is not built: run npm run build');
});

describe("README: In front of someone else's API", () => {
  it('shows the example file word for word (its import, then the marked part)', () => {
    expect(region.length).toBeGreaterThan(500);
    expect(example).toContain("import { createLimiter, throttle } from 'ratelab';\n");
    expect(readmeBlock()).toBe(`import { createLimiter, throttle } from 'ratelab';\n\n${region}`);
  });

  it('runs: every call served, no 429 from either provider', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['examples/third-party-api.mjs'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(JSON.parse(stdout)).toEqual({
      payments: { calls: 150, ok: 150, rejected: 0 },
      llm: { calls: 7, ok: 7, rejected: 0 },
    });
  }, 40_000);
});
