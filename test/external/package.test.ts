// The package as users get it, like express-rate-limit's test/external: `npm pack`, install
// the tarball into temporary projects (ESM and CommonJS JavaScript, TypeScript with
// moduleResolution node16 and bundler), import every entry point, make one decision.
// ratelab comes from the tarball; its dependencies from the npm cache (or the registry).
// Set RATELAB_PACK_NO_BUILD=1 when dist/ is fresh (CI: `npm ci` just built it).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { limiterScript } from '../../src/redis/scripts.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  version: string;
  devDependencies: Record<string, string>;
};

/** Every public entry point and a value it must export. */
const ENTRIES = [
  { specifier: 'ratelab', value: 'createLimiter' },
  { specifier: 'ratelab/tiers', value: 'parseTiers' },
  { specifier: 'ratelab/redis', value: 'createRedisLimiter' },
  { specifier: 'ratelab/http', value: 'rateLimit' },
  { specifier: 'ratelab/shared', value: 'createSharedLimiter' },
  { specifier: 'ratelab/lab', value: 'replay' },
  { specifier: 'ratelab/metrics', value: 'registerMetrics' },
  { specifier: 'ratelab/fetch', value: 'rateLimitFetch' },
] as const;

/** A TypeScript consumer Bun and Deno run as they are: the core and ratelab/fetch, by bare specifier from node_modules. */
const FETCH_CONSUMER = `import { createLimiter } from 'ratelab';
import { decide } from 'ratelab/fetch';
const options = { limiter: createLimiter('token-bucket', { limit: 1, windowMs: 1000 }), key: () => 'k' };
const first = await decide(new Request('http://ratelab.test/'), options);
const second = await decide(new Request('http://ratelab.test/'), options);
console.log(JSON.stringify([first.allowed, second.allowed, second.response?.status, second.headers.get('retry-after')]));
`;

let work: string;

/** Runs a command; on failure the error carries what it printed (tsc prints to stdout). */
function run(command: string, args: readonly string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed:\n${stdout ?? ''}${stderr ?? ''}`, { cause: error });
  }
}

/** Writes `files` (path -> text) under `dir`. */
function writeProject(dir: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'ratelab-pack-'));
  if (process.env.RATELAB_PACK_NO_BUILD !== '1') run('npm', ['run', 'build', '--silent'], root);
  run('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], root);
  const tarball = readdirSync(work).find((name) => name.endsWith('.tgz'));
  if (tarball === undefined) throw new Error(`npm pack wrote no tarball in ${work}`);
  // One install shared by the projects below (Node looks up node_modules from each).
  writeProject(work, { 'package.json': JSON.stringify({ name: 'ratelab-external', private: true }) });
  const types = `@types/node@${manifest.devDependencies['@types/node']}`;
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--ignore-scripts', join(work, tarball), types],
    work,
  );
});

afterAll(() => {
  if (work !== undefined) rmSync(work, { recursive: true, force: true });
});

const DECIDE = "createLimiter('token-bucket', { limit: 1, windowMs: 1000 })";

describe('the packed package', () => {
  it('installs ratelab from the tarball without its optional peers ioredis, prom-client, @opentelemetry/api', () => {
    const installed = JSON.parse(readFileSync(join(work, 'node_modules/ratelab/package.json'), 'utf8')) as {
      version: string;
    };
    expect(installed.version).toBe(manifest.version);
    for (const peer of ['ioredis', 'prom-client', '@opentelemetry/api'])
      expect(() => createRequire(join(work, 'x.js')).resolve(peer)).toThrow(/Cannot find module/);
  });

  it('writes an HTML report from its CLI, finding uPlot and the page script in the installed package', () => {
    run(
      process.execPath,
      [
        join(work, 'node_modules/ratelab/bin/ratelab.js'),
        'compare',
        'edge-attack',
        '--no-measure',
        '--no-chart',
        '--html',
        'r.html',
      ],
      work,
    );
    const page = readFileSync(join(work, 'r.html'), 'utf8');
    expect(page).toContain('var uPlot=');
    expect(page).toContain('window.ratelabCharts');
    expect(page).toContain('"fixed-window"');
    expect(page).not.toMatch(/https?:\/\//);
  });

  it('require()s every entry point from CommonJS and decides', () => {
    const script = [
      ...ENTRIES.map(
        (e) =>
          `if (typeof require('${e.specifier}').${e.value} !== 'function') throw new Error('${e.specifier}: no ${e.value}');`,
      ),
      `const limiter = require('ratelab').${DECIDE};`,
      "console.log(JSON.stringify([limiter.allow('k'), limiter.allow('k')]));",
    ].join('\n');
    writeProject(join(work, 'cjs'), { 'package.json': '{"type":"commonjs"}', 'main.js': script });
    expect(JSON.parse(run('node', ['main.js'], join(work, 'cjs')))).toEqual([true, false]);
  });

  it('import()s every entry point from ESM and decides', () => {
    const script = [
      ...ENTRIES.map(
        (e, i) =>
          `import { ${e.value} as v${i} } from '${e.specifier}';\nif (typeof v${i} !== 'function') throw new Error('${e.specifier}');`,
      ),
      `const limiter = v0('token-bucket', { limit: 1, windowMs: 1000 });`,
      "console.log(JSON.stringify([limiter.allow('k'), limiter.allow('k')]));",
    ].join('\n');
    writeProject(join(work, 'esm'), { 'package.json': '{"type":"module"}', 'main.js': script });
    expect(JSON.parse(run('node', ['main.js'], join(work, 'esm')))).toEqual([true, false]);
  });

  it.each([
    ['Bun', 'bun', ['main.ts']],
    ['Deno', 'deno', ['run', '--allow-read', 'main.ts']],
  ])(
    'a %s consumer imports ratelab and ratelab/fetch from the installed package and decides',
    (_name, runtime, args) => {
      const dir = join(work, runtime);
      writeProject(dir, { 'main.ts': FETCH_CONSUMER });
      // The runtimes of the devDependencies (bun, deno): each resolves the bare specifiers from work/node_modules.
      const out = run(join(root, 'node_modules/.bin', runtime), args, dir);
      expect(JSON.parse(out)).toEqual([true, false, 429, '1']);
    },
  );

  it.each(['cjs', 'esm'])('connectRedis without ioredis says what to install (%s)', (kind) => {
    const load =
      kind === 'cjs'
        ? "const { connectRedis } = require('ratelab/redis');"
        : "import { connectRedis } from 'ratelab/redis';";
    const script = `${load}\nconnectRedis('redis://127.0.0.1:1').then(() => console.log('connected'), (e) => console.log(JSON.stringify([e.name, e.code, e.message])));`;
    writeProject(join(work, `peer-${kind}`), {
      'package.json': JSON.stringify({ type: kind === 'cjs' ? 'commonjs' : 'module' }),
      'main.js': script,
    });
    const [name, code, message] = JSON.parse(run('node', ['main.js'], join(work, `peer-${kind}`))) as string[];
    expect([name, code]).toEqual(['RatelabError', 'MISSING_DEPENDENCY']);
    expect(message).toContain('npm install ioredis');
  });

  it.each([
    ['cjs', 'registerMetrics', 'prom-client'],
    ['esm', 'registerMetrics', 'prom-client'],
    ['cjs', 'registerOtelMetrics', '@opentelemetry/api'],
    ['esm', 'registerOtelMetrics', '@opentelemetry/api'],
  ])('ratelab/metrics without its peers says what to install (%s, %s)', (kind, call, peer) => {
    const load =
      kind === 'cjs'
        ? `const { ${call} } = require('ratelab/metrics');\nconst { createLimiter } = require('ratelab');`
        : `import { ${call} } from 'ratelab/metrics';\nimport { createLimiter } from 'ratelab';`;
    const target =
      call === 'registerMetrics'
        ? '{ registry: { getSingleMetric() {}, registerMetric() {} }, name: "api" }'
        : '{ meter: { createObservableCounter() {}, createObservableGauge() {}, createHistogram() {} }, name: "api" }';
    const script = `${load}
const limiter = createLimiter('gcra', { limit: 1, windowMs: 1000 });
try { ${call}(limiter, ${target}); console.log('[]'); } catch (e) { console.log(JSON.stringify([e.name, e.code, e.message])); }`;
    const dir = join(work, `metrics-${kind}-${call}`);
    writeProject(dir, {
      'package.json': JSON.stringify({ type: kind === 'cjs' ? 'commonjs' : 'module' }),
      'main.js': script,
    });
    const [name, code, message] = JSON.parse(run('node', ['main.js'], dir)) as string[];
    expect([name, code]).toEqual(['RatelabError', 'MISSING_DEPENDENCY']);
    expect(message).toContain(`npm install ${peer}`);
  });

  it.each(['cjs', 'esm'])('sends the Lua script the source folder holds, inlined in the bundle (%s)', (kind) => {
    // A stand-in client: EVALSHA answers NOSCRIPT, so the limiter sends the script's source by EVAL.
    const load =
      kind === 'cjs'
        ? "const { createRedisLimiter } = require('ratelab/redis');"
        : "import { createRedisLimiter } from 'ratelab/redis';";
    const script = `${load}
let sent;
const redis = { evalsha: async () => { throw new Error('NOSCRIPT'); }, eval: async (source) => { sent = source; return [1, 0, 0, 0]; } };
const limiter = createRedisLimiter('gcra', { limit: 5, windowMs: 1000 }, { redis });
Promise.resolve().then(() => limiter.consume('k')).catch(() => {}).then(() => console.log(JSON.stringify(sent)));`;
    writeProject(join(work, `lua-${kind}`), {
      'package.json': JSON.stringify({ type: kind === 'cjs' ? 'commonjs' : 'module' }),
      'main.js': script,
    });
    const sent = JSON.parse(run('node', ['main.js'], join(work, `lua-${kind}`))) as string;
    const lua = (name: string) => readFileSync(join(root, 'src/redis', `${name}.lua`), 'utf8');
    expect(sent).toContain(lua('gcra'));
    expect(sent).toContain(lua('batch'));
    // common.lua's head and the helpers GCRA calls (scripts.ts leaves the others out).
    expect(sent).toBe(limiterScript('gcra', { limit: 5, windowMs: 1000, capacity: 5 }, 0).source);
  });

  const TYPED = `import { createLimiter, RateLimiterRegistry, RatelabError, type RateLimiter, type Decision, type TiersConfig } from 'ratelab';
import { parseTiers } from 'ratelab/tiers';
import { createRedisLimiter, type RedisClient, type RedisRateLimiter } from 'ratelab/redis';
import { rateLimit, type RateLimitOptions } from 'ratelab/http';
import { replay, type Scenario } from 'ratelab/lab';
import { registerMetrics, type PrometheusRegistry, type OtelMeter } from 'ratelab/metrics';
const limiter: RateLimiter = createLimiter('token-bucket', { limit: 1, windowMs: 1000 });
const decision: Decision = limiter.consume('k');
const allowed: boolean = decision.allowed;
const tiers: TiersConfig = parseTiers('tiers: { free: { algorithm: gcra, limit: 1, window: 1s } }\\ndefault: free\\n');
const registry = new RateLimiterRegistry(tiers);
const options: RateLimitOptions = { limiter };
// Any client with the three commands will do: no ioredis types needed.
const client: RedisClient = { evalsha: async () => null, eval: async () => null, del: async () => 0 };
const redisLimiter: RedisRateLimiter = createRedisLimiter('gcra', { limit: 1, windowMs: 1000 }, { redis: client });
const scenario: Scenario | undefined = undefined;
// Structural registry and meter: the declarations need neither prom-client nor OpenTelemetry.
const promRegistry: PrometheusRegistry = { getSingleMetric: () => undefined, registerMetric: () => undefined };
const meter: OtelMeter | undefined = undefined;
// @ts-expect-error an unknown algorithm is a type error
createLimiter('leaky', { limit: 1, windowMs: 1000 });
export { allowed, meter, options, promRegistry, redisLimiter, registerMetrics, registry, scenario, RatelabError, rateLimit, replay };
`;

  it.each([
    {
      name: 'node16, CommonJS project',
      type: 'commonjs',
      module: 'node16',
      moduleResolution: 'node16',
      types: 'index.d.cts',
    },
    { name: 'node16, ESM project', type: 'module', module: 'node16', moduleResolution: 'node16', types: 'index.d.ts' },
    { name: 'bundler', type: 'module', module: 'esnext', moduleResolution: 'bundler', types: 'index.d.ts' },
  ])('type checks every entry point with moduleResolution $name', ({ name, type, module, moduleResolution, types }) => {
    const dir = join(work, `ts-${name.replace(/\W+/g, '-')}`);
    // No skipLibCheck: ratelab's declarations must check on their own, in a project
    // without the optional peer ioredis (RedisClient is structural).
    const compilerOptions = {
      module,
      moduleResolution,
      target: 'es2022',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      types: ['node'],
    };
    writeProject(dir, {
      'package.json': JSON.stringify({ type }),
      'tsconfig.json': JSON.stringify({ compilerOptions, files: ['main.ts'] }),
      'main.ts': TYPED,
    });
    const files = run('node', [tsc, '-p', dir, '--listFiles'], dir).split('\n');
    // No diagnostics, and the types came from the declarations for this module kind.
    expect(files.filter((line) => line.includes('error TS'))).toEqual([]);
    expect(files).toContain(join(work, 'node_modules/ratelab/dist/lib', types));
  });
});
