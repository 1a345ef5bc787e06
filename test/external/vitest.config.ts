import { defineConfig } from 'vitest/config';

// The packed-package test (`npm run test:package`, run by .ci/run after `npm test`): it
// packs and installs the package once (npm, ~10-60 s), so it has its own config and
// timeouts instead of slowing every `npm test`.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/external/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
