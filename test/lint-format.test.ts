// The lint and the format check that .ci/run runs before the tests (npm run lint, npm run
// format:check), shown failing on samples. Each sample is handed over as text under a path in
// the tree, so the tree's own config applies to it (prettier.config.js, .prettierignore,
// eslint.config.js) and no file is written. Prettier runs as its CLI, exit code and all; ESLint
// through its Node API (the same config file), loaded once for all the samples.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const prettier = join(dirname(require.resolve('prettier/package.json')), 'bin', 'prettier.cjs');

/** The exit code of `prettier --check` given `text` as the file at `path` (relative to the root). */
function formatCheck(path: string, text: string): number | null {
  return spawnSync(process.execPath, [prettier, '--check', '--stdin-filepath', path], {
    cwd: root,
    input: text,
    encoding: 'utf8',
  }).status;
}

const FORMATTED = "import { join } from 'node:path';\n\nexport const where = join('a', 'b');\n";

describe('npm run format:check fails on a file Prettier would change', () => {
  it.each([
    {
      path: 'src/core/sample.ts',
      text: FORMATTED,
      status: 0,
      why: 'laid out as Prettier lays it out: the check passes',
    },
    {
      path: 'src/core/sample.ts',
      text: FORMATTED.replace("'b'", `'${'b'.repeat(120)}'`),
      status: 1,
      why: 'a line over the print width, 120',
    },
    {
      path: 'src/core/sample.ts',
      text: FORMATTED.replace('\n\n', '\n\n\n'),
      status: 1,
      why: 'two blank lines in a row',
    },
    {
      path: 'src/core/sample.ts',
      text: FORMATTED.replaceAll("'", '"'),
      status: 1,
      why: 'double quotes where single ones do',
    },
    { path: 'test/sample.test.ts', text: 'const  x=1\n', status: 1, why: 'tests are formatted too' },
    {
      path: 'scenarios/sample.yaml',
      text: 'a:   {b: "c"}\n',
      status: 0,
      why: 'the built-in scenarios are data, left as written (.prettierignore)',
    },
    {
      path: 'docs/sample.md',
      text: '|a|b|\n|-|-|\n|long cell|x|\n',
      status: 0,
      why: "Markdown is left alone: Prettier would pad the docs' tables",
    },
  ])('$path: $why', ({ path, text, status }) => {
    expect(formatCheck(path, text)).toBe(status);
  });
});

describe('npm run lint fails on a finding', () => {
  const eslint = new ESLint({ cwd: root });

  /** The rules `text` breaks as the file at `path`. */
  async function findings(path: string, text: string): Promise<(string | null)[]> {
    const [result] = await eslint.lintText(text, { filePath: join(root, path) });
    return (result?.messages ?? []).map((message) => message.ruleId);
  }

  it.each([
    {
      path: 'src/core/sample.ts',
      text: FORMATTED.replace('export', '/** Where. */\nexport'),
      rules: [],
      why: 'a documented module with its imports first: nothing to say',
    },
    {
      path: 'src/core/sample.ts',
      text: "/** Where. */\nexport const where = 1;\nimport { join } from 'node:path';\njoin();\n",
      rules: ['no-restricted-syntax'],
      why: 'an import after other statements',
    },
    {
      path: 'test/sample.test.ts',
      text: 'const unused = 1;\n',
      rules: ['@typescript-eslint/no-unused-vars'],
      why: 'a name never used (a leading _ says it is on purpose)',
    },
    {
      path: 'src/core/clock.ts',
      text: 'export const where = 1;\n',
      rules: ['jsdoc/require-jsdoc'],
      why: 'an undocumented export of a module an entry point re-exports from',
    },
    {
      path: 'src/index.ts',
      text: "export { where } from './core/sample.js';\n",
      rules: ['jsdoc/require-jsdoc'],
      why: "an entry's re-export without its line saying what it is",
    },
    {
      path: 'src/algorithms/sample.ts',
      text: '/** Now. */\nexport const now = (): number => Date.now();\n',
      rules: ['no-restricted-properties'],
      why: 'an algorithm reading the wall clock instead of the clock it is given',
    },
    {
      path: 'src/cli/sample.ts',
      text: 'process.exit(1);\n',
      rules: ['no-restricted-properties'],
      why: 'only bin/ exits; a command returns its exit code',
    },
  ])('$path: $why', async ({ path, text, rules }) => {
    expect(await findings(path, text)).toEqual(rules);
  });
});

describe('.ci/run', () => {
  it('runs the lint and the format check after the type check and before the tests, failing on either', () => {
    const script = readFileSync(join(root, '.ci/run'), 'utf8');
    const at = (line: string) => script.indexOf(line);
    expect(at('npm run --silent lint || fail')).toBeGreaterThan(at('npx tsc --noEmit -p . || fail'));
    expect(at('npm run --silent format:check || fail')).toBeGreaterThan(at('npm run --silent lint || fail'));
    expect(at('npm test -- ')).toBeGreaterThan(at('npm run --silent format:check || fail'));
  });
});
