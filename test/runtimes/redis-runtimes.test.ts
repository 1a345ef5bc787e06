// Issue 28, item 3: ratelab/redis through the clients that run there, on Bun and on Deno
// (npm compatibility). Each row starts its own redis-server (a free loopback port) and its
// runtime from the npm package that ships it, serving test/runtimes/redis-app.mjs over the
// built bundles (dist/lib/, `npm run build` first) with ioredis and node-redis loaded by
// that runtime from node_modules. For each client:
// - CONCURRENT consumes at once on one key admit exactly LIMIT, for every algorithm, the
//   rest denied with retryAfterMs > 0, all decided by Redis (not a fail mode);
// - a two-limit composite (5 a second, 20 an hour) decides each call in one script call;
// - a rateLimitFetch server (Bun.serve / Deno.serve) over a Redis limiter answers 429
//   after its 3 per minute.
// A runtime or client that cannot run fails its row; none is skipped. Each row prints what it ran.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import { describeRedis } from '../support/describe-redis.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { bin, root, startProcess, type Started } from './start-runtime.js';
// @ts-expect-error -- plain JavaScript shared with the runtimes, no declarations
import { CONCURRENT, LIMIT } from './redis-app.mjs';

const CLIENTS = ['ioredis', 'node-redis'] as const;

const ROWS: { name: string; start: (redisUrl: string) => Promise<Started> }[] = [
  { name: 'bun', start: (url) => startProcess(bin('bun'), ['test/runtimes/bun-redis-main.mjs', url]) },
  {
    name: 'deno',
    start: (url) =>
      startProcess(bin('deno'), [
        'run',
        // The package.json is read (not --no-config) so that `ioredis` and `redis` resolve
        // from node_modules as installed; nothing is downloaded nor a lockfile written.
        '--node-modules-dir=manual',
        '--no-lock',
        '--no-prompt',
        // ioredis's dependency `debug` lists every environment variable when it loads.
        '--allow-env',
        '--allow-net=127.0.0.1',
        `--allow-read=${root}`,
        'test/runtimes/deno-redis-main.mjs',
        url,
      ]),
  },
];

/** The fields of a decision redis-app.mjs sends back. */
interface Seen {
  allowed: boolean;
  remaining: number;
  retryAfterMs: number;
  reason: string;
  limits?: { name: string; allowed: boolean; remaining: number }[];
}

interface Checks {
  version: string;
  concurrent: Record<string, Seen[]>;
  composite: { admitted: Seen[]; denied: Seen; calls: [number, number] };
}

const redisVersion = /v=(\S+)/.exec(spawnSync('redis-server', ['--version']).stdout?.toString() ?? '')?.[1] ?? '?';

beforeAll(() => {
  if (!existsSync(join(root, 'dist/lib/redis.js'))) throw new Error('dist/lib/ is not built: run npm run build');
});

describeRedis('ratelab/redis on other runtimes', () => {
  describe.each(ROWS)('$name', ({ start }) => {
    let redis: RedisServer;
    let server: Started;
    const row = Object.fromEntries(
      CLIENTS.map((client) => [
        client,
        { version: '?', concurrent: 'not run', composite: 'not run', smoke: 'not run' },
      ]),
    );
    beforeAll(async () => {
      redis = await startRedisServer();
      server = await start(redis.url);
    }, 40_000);
    afterAll(async () => {
      const clients = CLIENTS.map(
        (client) =>
          `${client} ${row[client]?.version}: concurrent ${row[client]?.concurrent}, composite ${row[client]?.composite}, server smoke ${row[client]?.smoke}`,
      );
      console.log(
        `runtime ${server?.runtime ?? 'not started'} ${server?.version ?? ''} with Redis ${redisVersion}: ${clients.join('; ')}`,
      );
      await server?.stop();
      await redis?.stop();
    });

    describe.each(CLIENTS)('%s', (client) => {
      let checks: Checks;
      beforeAll(async () => {
        const response = await fetch(new URL(`/checks/${client}`, server.url), { method: 'POST' });
        expect(response.status, await response.clone().text()).toBe(200);
        checks = (await response.json()) as Checks;
        (row[client] as { version: string }).version = checks.version;
      }, 30_000);

      it(`admits exactly ${LIMIT} of ${CONCURRENT} concurrent consumes on one key, for every algorithm, then denies with retryAfterMs > 0`, () => {
        for (const algorithm of ALGORITHMS) {
          const decisions = checks.concurrent[algorithm] ?? [];
          const admitted = decisions.filter((d) => d.allowed);
          const denied = decisions.filter((d) => !d.allowed);
          const steps = [
            { what: 'decisions', got: decisions.length, want: CONCURRENT, why: 'every consume answered' },
            {
              what: 'reasons',
              got: [...new Set(decisions.map((d) => d.reason))],
              want: ['redis'],
              why: 'Redis decided each: none timed out into the fail mode',
            },
            { what: 'admitted', got: admitted.length, want: LIMIT, why: 'the script is atomic: no race admits more' },
            {
              what: 'remaining when admitted',
              got: admitted.map((d) => d.remaining).sort(),
              want: [0, 1, 2, 3, 4],
              why: 'each admission took one unit',
            },
            {
              what: 'denied waiting',
              got: denied.every((d) => d.remaining === 0 && d.retryAfterMs > 0),
              want: true,
              why: 'a denial says when to come back',
            },
          ];
          for (const step of steps) expect(step.got, `${algorithm}: ${step.what} (${step.why})`).toEqual(step.want);
        }
        (row[client] as { concurrent: string }).concurrent = `(${ALGORITHMS.length} algorithms) passed`;
      });

      it('decides a two-limit composite (5 a second, 20 an hour) in one script call', () => {
        const { admitted, denied, calls } = checks.composite;
        expect(
          admitted.map((d) => [d.allowed, d.remaining, d.limits?.map((l) => l.remaining)]),
          'five admitted, each limit taking one (the least remaining is the second limit)',
        ).toEqual([
          [true, 4, [4, 19]],
          [true, 3, [3, 18]],
          [true, 2, [2, 17]],
          [true, 1, [1, 16]],
          [true, 0, [0, 15]],
        ]);
        expect(
          denied.limits,
          'the sixth: the second limit denies, the hour is untouched (a denial writes nothing)',
        ).toEqual([
          { name: 'second', allowed: false, remaining: 0 },
          { name: 'hour', allowed: true, remaining: 15 },
        ]);
        expect([denied.allowed, denied.reason]).toEqual([false, 'redis']);
        expect(denied.retryAfterMs, 'until the oldest of the five leaves the second').toBeGreaterThan(0);
        expect(denied.retryAfterMs).toBeLessThanOrEqual(1000);
        expect(calls, 'script calls: the five at once batched into one, the sixth one').toEqual([1, 1]);
        (row[client] as { composite: string }).composite = 'passed';
      });

      it('serves rateLimitFetch over the Redis limiter: three admitted, the fourth 429 with Retry-After', async () => {
        const replies = [];
        for (let i = 0; i < 4; i++) {
          const response = await fetch(new URL(`/limited/${client}`, server.url));
          replies.push({
            status: response.status,
            limit: response.headers.get('x-ratelimit-limit'),
            remaining: response.headers.get('x-ratelimit-remaining'),
            retryAfter: response.headers.get('retry-after'),
            body: await response.text(),
          });
        }
        expect(replies.map(({ status, limit, remaining }) => [status, limit, remaining])).toEqual([
          [200, '3', '2'],
          [200, '3', '1'],
          [200, '3', '0'],
          [429, '3', '0'],
        ]);
        expect(replies.slice(0, 3).map((r) => [r.body, r.retryAfter])).toEqual([
          ['ok', null],
          ['ok', null],
          ['ok', null],
        ]);
        const seconds = Number(replies[3]?.retryAfter);
        expect(seconds, 'whole seconds until the first of the three leaves the minute').toBeGreaterThanOrEqual(1);
        expect(seconds).toBeLessThanOrEqual(60);
        expect(JSON.parse(replies[3]?.body ?? '')).toMatchObject({ error: 'too_many_requests', retryAfter: seconds });
        (row[client] as { smoke: string }).smoke = 'passed';
      });
    });
  });
});
