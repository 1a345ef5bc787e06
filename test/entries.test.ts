// The package's entry points as a user meets them: `ratelab` resolved by name (Node's
// self-reference through package.json "exports") to the built bundles in dist/lib/ (built
// by `npm run build`, and by `npm ci` through `prepare`), each in a fresh process. Issue
// 10's "done when": the core loads no third-party file and exports at most 30 names, every
// subpath resolves, ioredis is an optional peer; ratelab/metrics loads its optional peers
// (prom-client, @opentelemetry/api) only when called, and says what to install when one is
// missing. Import time is a benchmark figure, not a
// test: bench/import-time.mjs, figures in docs/library.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import * as core from '../src/index.js';
import * as lab from '../src/lab/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `script` as an ES module in a fresh node whose working directory is the package
 * root, so `import('ratelab')` resolves as it does for a user; returns its stdout.
 */
function fresh(script: string): string {
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
}

/**
 * The files a fresh process loads for `load` (an expression, awaited): ES modules as a
 * module.register() resolve hook sees them, CommonJS ones from require.cache. After the
 * load the script resolves a sentinel through the same hook: messages from the hook
 * thread arrive in order, so once the sentinel is in, every file before it is too.
 */
function filesLoadedBy(load: string): string[] {
  const hook = `let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
  if (specifier === 'sentinel:end') { port.postMessage('sentinel:end'); return { url: 'sentinel:end', shortCircuit: true }; }
  const result = await next(specifier, context);
  port.postMessage(result.url);
  return result;
}`;
  const script = `import { createRequire, register } from 'node:module';
import { MessageChannel } from 'node:worker_threads';
const require = createRequire(process.cwd() + '/');
const { port1, port2 } = new MessageChannel();
const seen = [];
const ended = new Promise((done) => port1.on('message', (url) => (url === 'sentinel:end' ? done() : seen.push(url))));
register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
await (${load});
import.meta.resolve('sentinel:end');
await ended;
port1.close();
console.log(JSON.stringify([...seen, ...Object.keys(require.cache)]));`;
  return JSON.parse(fresh(script)) as string[];
}

beforeAll(() => {
  if (!existsSync(join(root, 'dist/lib/index.js'))) throw new Error('dist/lib/ is not built: run npm run build');
});

describe("the core entry, import('ratelab')", () => {
  it.each([
    ['import()', "import('ratelab')"],
    ['require()', "Promise.resolve(require('ratelab'))"],
  ])('loads no file under node_modules (%s), only the bundle', (_how, load) => {
    const files = filesLoadedBy(load);
    // The check sees the loads: the bundle itself is among them.
    expect(files.some((file) => file.includes('dist/lib/index.'))).toBe(true);
    expect(files.filter((file) => file.includes('node_modules'))).toEqual([]);
  });

  it('ratelab/shared loads no file under node_modules either (Node built-ins only)', () => {
    const files = filesLoadedBy("import('ratelab/shared')");
    expect(files.some((file) => file.includes('dist/lib/shared.'))).toBe(true);
    expect(files.filter((file) => file.includes('node_modules'))).toEqual([]);
  });

  it.each([
    ['import()', "import('ratelab/fetch')"],
    ['require()', "Promise.resolve(require('ratelab/fetch'))"],
  ])('ratelab/fetch loads no file under node_modules (%s), nor any node: module', (_how, load) => {
    const files = filesLoadedBy(load);
    expect(files.some((file) => file.includes('dist/lib/fetch.'))).toBe(true);
    expect(files.filter((file) => file.includes('node_modules') || file.startsWith('node:'))).toEqual([]);
  });

  it('ratelab/metrics loads no file under node_modules until a function of it is called (its peers are optional)', () => {
    const files = filesLoadedBy("import('ratelab/metrics')");
    expect(files.some((file) => file.includes('dist/lib/metrics.'))).toBe(true);
    expect(files.filter((file) => file.includes('node_modules'))).toEqual([]);
  });

  it('is apart from ratelab/tiers, whose parsers load yaml and zod (the check sees packages)', () => {
    const packages = new Set(
      filesLoadedBy("import('ratelab/tiers')").map((file) => /node_modules[\\/]([^\\/]+)/.exec(file)?.[1]),
    );
    expect(packages).toContain('yaml');
    expect(packages).toContain('zod');
  });

  it('exports at most 30 names, the limiter library', () => {
    const names = JSON.parse(fresh("console.log(JSON.stringify(Object.keys(await import('ratelab'))))")) as string[];
    expect(names.length).toBeLessThanOrEqual(30);
    expect([...names].sort()).toEqual(Object.keys(core).sort());
  });

  it('makes a decision', () => {
    const script =
      "const { createLimiter } = await import('ratelab'); const l = createLimiter('token-bucket', { limit: 1, windowMs: 1000 }); console.log(JSON.stringify([l.allow('k'), l.allow('k')]));";
    expect(JSON.parse(fresh(script))).toEqual([true, false]);
  });
});

describe('the source of the core entry (src/index.ts)', () => {
  it('exports exactly these values (types aside)', () => {
    expect(Object.keys(core).sort()).toEqual([
      'ALGORITHMS',
      'MAX_LIMIT',
      'MAX_LIMITS',
      'ManualClock',
      'OUTCOMES',
      'RateLimiterRegistry',
      'RatelabError',
      'SLIDING_LOG_MAX_LIMIT',
      'adaptiveThrottle',
      'checkAlgorithm',
      'checkPolicy',
      'createAdaptiveLimiter',
      'createLimiter',
      'createStoreLimiter',
      'createSystemClock',
      'formatDuration',
      'parseDuration',
      'readServerLimit',
      'systemClock',
      'throttle',
    ]);
  });
});

describe('the subpath entries', () => {
  it.each([
    ['ratelab/redis', 'redis.js', 'createRedisLimiter'],
    ['ratelab/http', 'http.js', 'rateLimit'],
    ['ratelab/shared', 'shared.js', 'createSharedLimiter'],
    ['ratelab/tiers', 'tiers.js', 'loadTiers'],
    ['ratelab/lab', 'lab.js', 'replay'],
    ['ratelab/metrics', 'metrics.js', 'registerMetrics'],
    ['ratelab/fetch', 'fetch.js', 'rateLimitFetch'],
  ])('%s resolves to dist/lib/%s and exports %s', (specifier, bundle, value) => {
    const script = `console.log(JSON.stringify([import.meta.resolve('${specifier}'), typeof (await import('${specifier}')).${value}]));`;
    const [url, type] = JSON.parse(fresh(script)) as [string, string];
    expect(fileURLToPath(url)).toBe(join(root, 'dist/lib', bundle));
    expect(type).toBe('function');
  });

  it('ratelab/lab leaves out the lab internals', () => {
    const internals = ['WindowLedger', 'SyncedWindow', 'nodeWeight', 'KeyIds', 'nodeShare', 'headerProblem'];
    expect(internals.filter((name) => name in lab)).toEqual([]);
  });
});

describe('ratelab/metrics without its optional peers', () => {
  const HIDE = new URL('./support/hide-packages.mjs', import.meta.url).href;

  /** Runs `script` (ESM or CommonJS) in a fresh node where `hidden` packages cannot be found; its stdout. */
  function withoutPackages(hidden: string, script: string, type: 'module' | 'commonjs'): string {
    return execFileSync(process.execPath, ['--import', HIDE, `--input-type=${type}`, '-e', script], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, RATELAB_HIDE_PACKAGES: hidden },
    });
  }

  const CALLS = {
    registerMetrics:
      "registerMetrics(limiter, { registry: { getSingleMetric() {}, registerMetric() {} }, name: 'api' })",
    registerOtelMetrics:
      "registerOtelMetrics(limiter, { meter: { createObservableCounter() {}, createObservableGauge() {}, createHistogram() {} }, name: 'api' })",
  };

  it.each([
    ['registerMetrics', 'prom-client', 'module'],
    ['registerMetrics', 'prom-client', 'commonjs'],
    ['registerOtelMetrics', '@opentelemetry/api', 'module'],
    ['registerOtelMetrics', '@opentelemetry/api', 'commonjs'],
  ] as const)('%s without %s throws MISSING_DEPENDENCY naming it (%s)', (call, missing, type) => {
    const load =
      type === 'module'
        ? "const { registerMetrics, registerOtelMetrics } = await import('ratelab/metrics');"
        : "const { registerMetrics, registerOtelMetrics } = require('ratelab/metrics');";
    const script = `${load}
const limiter = { addDecisionListener: () => () => {}, listenerErrors: 0 };
try { ${CALLS[call]}; console.log('[]'); } catch (e) { console.log(JSON.stringify([e.name, e.code, e.message])); }`;
    const [name, code, message] = JSON.parse(withoutPackages(missing, script, type)) as string[];
    expect([name, code]).toEqual(['RatelabError', 'MISSING_DEPENDENCY']);
    expect(message).toContain(`npm install ${missing}`);
  });

  it('the hiding works on what it hides only (the same scripts load prom-client when nothing is hidden)', () => {
    const script = `const { registerMetrics } = await import('ratelab/metrics');
const { Registry } = await import('prom-client');
const registry = new Registry();
registerMetrics({ addDecisionListener: () => () => {}, listenerErrors: 0 }, { registry, name: 'api' });
console.log(JSON.stringify((await registry.getMetricsAsJSON()).map((m) => m.name)));`;
    expect(JSON.parse(withoutPackages('some-other-package', script, 'module'))).toContain('ratelab_decisions_total');
  });
});

describe('package.json', () => {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    peerDependencies: Record<string, string>;
    peerDependenciesMeta: Record<string, { optional?: boolean }>;
    exports: Record<string, unknown>;
  };

  it('has ioredis as an optional peer dependency, not a dependency', () => {
    expect(manifest.dependencies).not.toHaveProperty('ioredis');
    expect(manifest.peerDependencies).toHaveProperty('ioredis');
    expect(manifest.peerDependenciesMeta.ioredis?.optional).toBe(true);
    // node-redis v5, the other client the Redis limiters accept: optional too.
    expect(manifest.dependencies).not.toHaveProperty('redis');
    expect(manifest.peerDependenciesMeta.redis?.optional).toBe(true);
  });

  it('has prom-client and @opentelemetry/api as optional peer dependencies (ratelab/metrics), not dependencies', () => {
    for (const name of ['prom-client', '@opentelemetry/api']) {
      expect(manifest.dependencies).not.toHaveProperty(name);
      expect(manifest.peerDependencies).toHaveProperty(name);
      expect(manifest.peerDependenciesMeta[name]?.optional).toBe(true);
    }
  });

  it('exports the eight entry points and package.json, nothing else', () => {
    expect(Object.keys(manifest.exports)).toEqual([
      '.',
      './tiers',
      './redis',
      './http',
      './shared',
      './lab',
      './metrics',
      './fetch',
      './package.json',
    ]);
  });
});
