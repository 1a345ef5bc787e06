// The linter: `npm run lint` (.ci/run runs it after the type check, before the tests; any
// finding, warnings included, fails). Syntax-only rules, no type information, so the whole
// tree lints in seconds; the type check (tsc) is the type-aware pass. Layout is Prettier's
// job (prettier.config.js), so no rule here is about layout.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import js from '@eslint/js';
import { defineConfig, includeIgnoreFile } from 'eslint/config';
import jsdoc from 'eslint-plugin-jsdoc';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const ROOT = import.meta.dirname;

/**
 * The entry points' sources: package.json "exports" names each entry's bundle
 * (`./dist/lib/NAME.js`), and tsup.config.ts ENTRIES maps NAME to its source (read from its
 * text: this config is JavaScript). Mostly `./name` is src/name/index.ts; `./metrics` is
 * src/observability/index.ts (src/metrics/ is the lab's accuracy metrics).
 */
function entryFiles() {
  const { exports } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const config = readFileSync(join(ROOT, 'tsup.config.ts'), 'utf8');
  const block = /export const ENTRIES = \{([^}]*)\}/.exec(config)?.[1] ?? '';
  const sources = new Map([...block.matchAll(/^\s*'?([\w-]+)'?: '([^']+)'/gm)].map(([, name, file]) => [name, file]));
  return Object.keys(exports)
    .filter((subpath) => subpath !== './package.json')
    .map((subpath) => {
      const bundle = /\/dist\/lib\/([\w-]+)\.js$/.exec(exports[subpath].import.default)?.[1];
      const file = sources.get(bundle);
      if (file === undefined || !existsSync(join(ROOT, file)))
        throw new Error(`eslint.config.js: no source in tsup.config.ts ENTRIES for package.json "exports" ${subpath}`);
      return file;
    });
}

/**
 * The modules the entries' names come from: the files each entry's `export ... from` names,
 * and the files those re-export from in turn.
 */
function apiModules(entries) {
  const reExport = /^export\b[^;]*?\bfrom\s+'(\.\.?\/[^']+)\.js';/gm;
  const seen = new Set();
  const queue = [...entries];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const [, specifier] of readFileSync(join(ROOT, file), 'utf8').matchAll(reExport)) {
      const target = relative(ROOT, join(ROOT, dirname(file), `${specifier}.ts`));
      if (!seen.has(target) && !entries.includes(target)) {
        seen.add(target);
        queue.push(target);
      }
    }
  }
  return [...seen].sort();
}

const ENTRIES = entryFiles();

export default defineConfig(
  // What .gitignore lists (build output, the tests' scratch): ESLint does not read it by itself.
  includeIgnoreFile(join(ROOT, '.gitignore')),
  { linterOptions: { reportUnusedDisableDirectives: 'error' } },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { globals: globals.node },
    rules: {
      // Every regex with a control character here means it: ANSI escapes stripped from
      // terminal text, control characters refused in keys and files.
      'no-control-regex': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'Program > :not(ImportDeclaration) ~ ImportDeclaration',
          message: 'Imports go first, before any other statement of the module.',
        },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.ts'],
    ...jsdoc.configs['flat/recommended-typescript-error'],
  },
  {
    files: ['**/*.ts'],
    rules: {
      // A doc comment names the parameters that need a word, not all of them; the names it
      // does give must exist (check-param-names). Which names need a doc comment at all is the
      // entry-point rule below.
      'jsdoc/require-jsdoc': 'off',
      'jsdoc/require-param': 'off',
      'jsdoc/require-returns': 'off',
      'jsdoc/check-param-names': ['error', { disableMissingParamChecks: true }],
    },
  },
  {
    // What a user of the package reads in an editor: every name exported by a module an entry
    // point re-exports from has a doc comment (units and bounds, by the developers' guide).
    files: apiModules(ENTRIES),
    rules: {
      'jsdoc/require-jsdoc': [
        'error',
        {
          publicOnly: true,
          require: { ClassDeclaration: true, FunctionDeclaration: true },
          contexts: ['TSInterfaceDeclaration', 'TSTypeAliasDeclaration', 'TSEnumDeclaration', 'VariableDeclaration'],
        },
      ],
    },
  },
  {
    // The entries themselves: each re-export carries a line saying what its names are for.
    files: ENTRIES,
    rules: {
      'jsdoc/require-jsdoc': [
        'error',
        {
          require: { FunctionDeclaration: false },
          contexts: ['ExportNamedDeclaration[source]', 'ExportAllDeclaration'],
        },
      ],
    },
  },
  {
    // Only bin/ ends the process (a command returns its exit code), and commands write
    // through their io, not the console.
    files: ['src/**'],
    rules: {
      'no-console': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'Return an exit code; only bin/ exits.' },
      ],
    },
  },
  {
    // Algorithms read time from the clock they are given, never the wall clock.
    files: ['src/algorithms/**'],
    rules: {
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'exit', message: 'Return an exit code; only bin/ exits.' },
        { object: 'Date', property: 'now', message: 'Time is an argument or the injected clock.' },
        { object: 'performance', property: 'now', message: 'Time is an argument or the injected clock.' },
      ],
    },
  },
  {
    // The HTML report's page script runs in the browser, after uPlot's script defines `uPlot`.
    files: ['src/report/**/*.browser.js'],
    languageOptions: { globals: { ...globals.browser, uPlot: 'readonly' } },
  },
);
