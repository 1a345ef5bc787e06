// Compiles src/ to dist/ and copies the non-TypeScript assets (Lua scripts, the HTML report's page script) beside
// their compiled modules, so the published package and `npx ratelab` need no TS tooling.
// Then bundles the library's entry points (ESM + CommonJS, with types) into dist/lib/
// with tsup (tsup.config.ts); the CLI runs the per-file output.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');
const tsup = join(dirname(require.resolve('tsup/package.json')), 'dist', 'cli-default.js');

rmSync(join(root, 'dist'), { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });

function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) copyAssets(path);
    else if (name.endsWith('.lua') || name.endsWith('.browser.js'))
      cpSync(path, join(root, 'dist', relative(join(root, 'src'), path)));
  }
}
copyAssets(join(root, 'src'));

execFileSync(process.execPath, [tsup, '--silent'], { stdio: 'inherit', cwd: root });
