// Preloaded with `node --import` by test/cli/lazy-start.test.ts: appends every file the
// process loads to the file named by RATELAB_LOAD_LOG, one path a line. ES modules are
// seen by a resolve hook (which runs on its own thread in Node 20, so it writes the file
// itself); CommonJS ones, which Node 20 loads outside the hooks, from require.cache at exit.
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';

const log = process.env.RATELAB_LOAD_LOG;
if (log) {
  register(new URL('./record-loads-hook.mjs', import.meta.url), { data: { log } });
  const require = createRequire(import.meta.url);
  process.on('exit', () =>
    appendFileSync(
      log,
      Object.keys(require.cache)
        .map((path) => `${path}\n`)
        .join(''),
    ),
  );
}
