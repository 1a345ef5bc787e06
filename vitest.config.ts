import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The packed-package test has its own config and CI step: `npm run test:package`.
    exclude: [...configDefaults.exclude, 'test/external/**'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
