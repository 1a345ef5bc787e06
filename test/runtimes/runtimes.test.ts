// Issue 28: the core and ratelab/fetch really run on Bun, Deno, Cloudflare's workerd and
// Node (Hono on @hono/node-server). Each row starts its runtime from the npm package that
// ships it (devDependencies: bun, deno, miniflare's workerd, hono + @hono/node-server) on a
// free loopback port, serving test/runtimes/app.mjs over the built bundles (dist/lib/,
// `npm run build` first), then:
// - POSTs the suite's own contract tables (every algorithm's step tables at two clock
//   bases, and the wait tables) to /contract, where contract-runner.mjs plays them in that
//   runtime through createLimiter and a ManualClock: all must pass;
// - GETs / four times: 3 per minute admits three with exact fields, then 429 with
//   Retry-After; the key is the one that runtime should give (its peer address; the
//   Worker's CF-Connecting-IP), never a header the client made up;
// - GETs /taken four times: the same, the handler writing the fields itself from
//   takeRateLimitFields (the middleware leaving its Response alone).
// A runtime that cannot start fails its row; none is skipped. Each row prints what it ran.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import { STEP_TABLES } from '../algorithms/step-tables.js';
import { WAIT_TABLES } from '../wait/wait-tables.js';
import { bin, root, startProcess, type Started } from './start-runtime.js';

/** The contract tables as JSON, Infinity written "Infinity" (contract-runner.mjs revives it). */
const CONTRACT = JSON.stringify(
  {
    steps: ALGORITHMS.flatMap((algorithm) => STEP_TABLES[algorithm].map((table) => ({ algorithm, table }))),
    waits: WAIT_TABLES,
  },
  (_key, value: unknown) => (value === Infinity ? 'Infinity' : value),
);
/** Step tables at two clock bases, plus the wait tables: what each runtime must pass. */
const TABLE_COUNT =
  ALGORITHMS.reduce((count, algorithm) => count + STEP_TABLES[algorithm].length, 0) * 2 + WAIT_TABLES.length;

async function startWorkerd(): Promise<Started> {
  const mf = new Miniflare({
    modules: true,
    scriptPath: join(root, 'test/runtimes/worker.mjs'),
    modulesRoot: root,
    // The bundles are ES modules named .js; without this Miniflare reads .js as CommonJS.
    modulesRules: [{ type: 'ESModule', include: ['**/*.js', '**/*.mjs'] }],
    // No nodejs_compat flag: ratelab/fetch and the core must run without Node's APIs.
    compatibilityDate: '2026-04-01',
    host: '127.0.0.1',
    port: 0,
  });
  const url = await mf.ready;
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules/workerd/package.json'), 'utf8')) as {
    version: string;
  };
  return { url: String(url), runtime: 'workerd (miniflare)', version, stop: () => mf.dispose() };
}

const ROWS: { name: string; start: () => Promise<Started>; key: string }[] = [
  { name: 'bun', start: () => startProcess(bin('bun'), ['test/runtimes/bun-main.mjs']), key: '127.0.0.1' },
  {
    name: 'deno',
    start: () =>
      startProcess(bin('deno'), [
        'run',
        '--no-config',
        '--no-prompt',
        '--allow-net=127.0.0.1',
        `--allow-read=${root}`,
        'test/runtimes/deno-main.mjs',
      ]),
    key: '127.0.0.1',
  },
  { name: 'workerd', start: startWorkerd, key: '192.0.2.1' },
  {
    name: 'node + hono',
    start: () => startProcess(process.execPath, ['test/runtimes/node-main.mjs']),
    key: '127.0.0.1',
  },
];

beforeAll(() => {
  if (!existsSync(join(root, 'dist/lib/fetch.js'))) throw new Error('dist/lib/ is not built: run npm run build');
});

describe.each(ROWS)('$name', ({ start, key }) => {
  let server: Started;
  const row = { tables: 'not run', smoke: 'not run', taken: 'not run' };
  beforeAll(async () => {
    server = await start();
  }, 40_000);
  afterAll(async () => {
    console.log(
      `runtime ${server?.runtime ?? 'not started'} ${server?.version ?? ''}: contract tables ${row.tables}, server smoke ${row.smoke}, fields taken by the handler ${row.taken}`,
    );
    await server?.stop();
  });

  it('plays every contract table (five algorithms at two clock bases, and wait) in that runtime', async () => {
    const response = await fetch(new URL('/contract', server.url), { method: 'POST', body: CONTRACT });
    const result = (await response.json()) as { tables: number; passed: number; failures: string[] };
    row.tables = `${result.passed}/${result.tables} passed`;
    expect(result.failures).toEqual([]);
    expect([result.tables, result.passed]).toEqual([TABLE_COUNT, TABLE_COUNT]);
  });

  it('serves rateLimitFetch: three admitted with exact fields, the fourth 429 with Retry-After', async () => {
    const replies = [];
    for (let i = 0; i < 4; i++) {
      // A client-made CF-Connecting-IP: only the Worker, configured to, believes it.
      const response = await fetch(server.url, { headers: { 'cf-connecting-ip': '192.0.2.1' } });
      const fields = Object.fromEntries(
        [...response.headers].filter(([name]) => /ratelimit|retry-after|x-ratelab-key/.test(name)),
      );
      replies.push({ status: response.status, fields, body: await response.text() });
    }
    const admitted = (remaining: number) => ({
      status: 200,
      body: 'ok',
      fields: {
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': '60',
        'ratelimit-policy': '"smoke";q=3;w=60',
        ratelimit: `"smoke";r=${remaining};t=60`,
        'x-ratelab-key': key,
      },
    });
    expect(replies.slice(0, 3)).toEqual([admitted(2), admitted(1), admitted(0)]);
    expect(replies[3]?.status).toBe(429);
    expect(replies[3]?.fields).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '60',
      'ratelimit-policy': '"smoke";q=3;w=60',
      ratelimit: '"smoke";r=0;t=60',
      'retry-after': '60',
    });
    expect(JSON.parse(replies[3]?.body ?? '')).toMatchObject({ error: 'too_many_requests', retryAfter: 60 });
    row.smoke = 'passed';
  });

  it('serves a handler that writes the fields itself (takeRateLimitFields): the same fields, then 429', async () => {
    const replies = [];
    for (let i = 0; i < 4; i++) {
      const response = await fetch(new URL('/taken', server.url), { headers: { 'cf-connecting-ip': '192.0.2.1' } });
      const fields = Object.fromEntries(
        [...response.headers].filter(([name]) => /ratelimit|retry-after|content-type/.test(name)),
      );
      replies.push({ status: response.status, fields, body: await response.text() });
    }
    const admitted = (remaining: number) => ({
      status: 200,
      body: 'ok',
      fields: {
        'content-type': 'text/plain',
        'x-ratelimit-limit': '3',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': '60',
        'ratelimit-policy': '"smoke";q=3;w=60',
        ratelimit: `"smoke";r=${remaining};t=60`,
      },
    });
    expect(replies.slice(0, 3)).toEqual([admitted(2), admitted(1), admitted(0)]);
    expect([replies[3]?.status, replies[3]?.fields['retry-after']]).toEqual([429, '60']);
    row.taken = 'passed';
  });
});
