// The library build: the package's entry points as ESM (.js) and CommonJS (.cjs) bundles
// with types for both (.d.ts, .d.cts), in dist/lib/. The CLI keeps running the per-file
// tsc output in dist/ (scripts/build.mjs runs both), because it finds its scenarios,
// package.json and child-process modules by paths relative to its own files.
//
// tsup 8.5 rather than tsup 9 or tsdown: both of those want Node 22, and ratelab supports 20.
import { readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { defineConfig, type Options } from 'tsup';

/**
 * The entry points by audience, bundle name -> source: package.json "exports" maps
 * `ratelab`, `ratelab/tiers`, `ratelab/redis`, `ratelab/http`, `ratelab/shared`, `ratelab/lab` and
 * `ratelab/metrics` and `ratelab/fetch` to them.
 */
export const ENTRIES = {
  index: 'src/index.ts',
  tiers: 'src/tiers/index.ts',
  redis: 'src/redis/index.ts',
  http: 'src/http/index.ts',
  shared: 'src/shared/index.ts',
  lab: 'src/lab/index.ts',
  metrics: 'src/observability/index.ts',
  fetch: 'src/fetch/index.ts',
  // Not an entry point: the script the memory probe runs in a child process, which it
  // finds beside its own module (metrics/child-process.ts siblingModule).
  'memory-child': 'src/metrics/memory-child.ts',
};

type Plugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * Inlines the Lua scripts into the module that reads them. The source reads `name.lua`
 * beside itself through import.meta.url, which a bundle (and CommonJS) does not have; the
 * bundle carries the sources instead. Fails the build if the read it replaces changed.
 */
export const inlineLua: Plugin = {
  name: 'ratelab-inline-lua',
  setup(build) {
    build.onLoad({ filter: /[\\/]redis[\\/]scripts\.ts$/ }, (args) => {
      const read = "readFileSync(new URL(`./${name}.lua`, import.meta.url), 'utf8')";
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes(read))
        throw new Error(`${args.path}: the Lua read to inline changed; update tsup.config.ts`);
      const dir = dirname(args.path);
      const scripts: Record<string, string> = {};
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.lua')))
        scripts[basename(file, '.lua')] = readFileSync(join(dir, file), 'utf8');
      const lookup = `(${JSON.stringify(scripts)}[name] ?? (() => { throw new Error('no Lua script ' + name); })())`;
      return { contents: source.replace(read, lookup), loader: 'ts' };
    });
  },
};

/**
 * The core for a browser page (`ratelab playground` inlines it): src/index.ts, the same code
 * `import 'ratelab'` runs, as one ES module with no chunks to fetch. The core's one Node
 * import, `performance` from node:perf_hooks (the store seam's latency timer), is the
 * browser's own global of the same name there.
 */
export const browserPerformance: Plugin = {
  name: 'ratelab-browser-performance',
  setup(build) {
    build.onResolve({ filter: /^(node:)?perf_hooks$/ }, () => ({ path: 'perf_hooks', namespace: 'ratelab-browser' }));
    build.onLoad({ filter: /.*/, namespace: 'ratelab-browser' }, () => ({
      contents: 'export const performance = globalThis.performance;',
      loader: 'js',
    }));
    build.onResolve({ filter: /^node:/ }, (args) => ({
      errors: [{ text: `${args.path}: the browser core build (dist/browser) must not import Node modules` }],
    }));
  },
};

/** dist/browser/index.js: the core entry as one ES module for the playground page (see browserPerformance). */
export const BROWSER_CORE = 'dist/browser/index.js';

const library = defineConfig({
  entry: ENTRIES,
  outDir: 'dist/lib',
  format: ['esm', 'cjs'],
  target: 'node20',
  platform: 'node',
  tsconfig: 'tsconfig.build.json',
  dts: true,
  splitting: true,
  shims: true,
  removeNodeProtocol: false,
  sourcemap: false,
  clean: true,
  treeshake: false,
  esbuildPlugins: [inlineLua],
});

const browser = defineConfig({
  entry: { index: 'src/index.ts' },
  outDir: 'dist/browser',
  format: ['esm'],
  target: 'es2022',
  platform: 'browser',
  tsconfig: 'tsconfig.build.json',
  dts: false,
  splitting: false,
  sourcemap: false,
  clean: false,
  treeshake: false,
  removeNodeProtocol: false,
  noExternal: [/^node:perf_hooks$/],
  esbuildPlugins: [browserPerformance],
});

export default [library, browser];
