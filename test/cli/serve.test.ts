import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/report/io.js';
import { ManualClock } from '../../src/index.js';
import { run } from '../../src/cli/main.js';
import { get, getMany } from '../http/support.js';
import { tiersFixture } from '../support/fixtures.js';
import { startServe } from './run-serve.js';

const exampleTiers = fileURLToPath(new URL('../../examples/tiers.yaml', import.meta.url));

describe('ratelab serve', () => {
  it('serves the example tiers: the tier from X-API-Key, else the address; stops cleanly on abort', async () => {
    const serve = await startServe({ tiers: exampleTiers, clock: new ManualClock(1_000) });
    try {
      const anonymous = await getMany(serve.url, 6);
      expect(anonymous.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(anonymous.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0', '0']);
      expect(anonymous[0]!.headers['ratelimit-policy']).toBe('"free";q=5;w=10');
      expect(JSON.parse(anonymous[0]!.body)).toEqual({ ok: true, tier: 'free', remaining: 4 });
      // 10 s windows from 0: at 1 s, 9 s to go.
      expect(anonymous[5]!.headers['retry-after']).toBe('9');

      const alice = await get(serve.url, { headers: { 'X-API-Key': 'alice' } });
      expect([alice.status, alice.headers['ratelimit-policy'], JSON.parse(alice.body).tier]).toEqual([
        200,
        '"pro";q=20;w=10;ratelab-burst=30',
        'pro',
      ]);
      // An unknown key names nobody: the request is limited by its address, whose quota is spent.
      const stranger = await get(serve.url, { headers: { 'X-API-Key': 'stranger' } });
      expect([stranger.status, stranger.headers['x-ratelimit-remaining']]).toEqual([429, '0']);
      const ops = await get(serve.url, { headers: { 'X-API-Key': 'ops' } });
      expect([ops.status, ops.headers['x-ratelimit-limit'], JSON.parse(ops.body)]).toEqual([
        200,
        undefined,
        { ok: true, tier: 'internal', remaining: null },
      ]);
    } finally {
      expect(await serve.stop()).toBe(0);
    }
    expect(serve.io.err()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+ \(tiers: free, pro, partner, internal\)/);
    expect(serve.io.err()).toMatch(/stopped\n$/);
    // Not a terminal and no --log: no request lines.
    expect(serve.io.out()).toBe('');
  });

  it('serves a tier of two limits: both policies in RateLimit-Policy, X-RateLimit-* and Retry-After of the binding one', async () => {
    const clock = new ManualClock(1_000);
    const serve = await startServe({ tiers: tiersFixture('two-limits.yaml'), clock });
    try {
      const first = await getMany(serve.url, 6);
      expect(first.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
      expect(first[0]!.headers['ratelimit-policy']).toBe('"burst";q=5;w=1, "3s";q=10;w=3');
      expect(first[0]!.headers.ratelimit).toBe('"burst";r=4;t=1, "3s";r=9;t=3');
      expect(JSON.parse(first[0]!.body)).toEqual({ ok: true, tier: 'composite', remaining: 4 });
      // Denied by the burst limit: its wait, and the 3 s limit took nothing (r=5).
      expect([first[5]!.headers['retry-after'], first[5]!.headers.ratelimit]).toEqual([
        '1',
        '"burst";r=0;t=1, "3s";r=5;t=3',
      ]);
      clock.advance(1_000);
      const second = await getMany(serve.url, 6);
      expect(second.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429]);
      // Now the 3 s limit binds: its limit in X-RateLimit-Limit, its wait (the first five leave at 4 s) in Retry-After.
      expect([second[5]!.headers['x-ratelimit-limit'], second[5]!.headers['retry-after']]).toEqual(['10', '2']);
      expect(second[5]!.headers.ratelimit).toBe('"burst";r=0;t=1, "3s";r=0;t=2');
    } finally {
      expect(await serve.stop()).toBe(0);
    }
  });

  it('uses --algorithm/--limit/--window without a tiers file, and logs one line per request with --log', async () => {
    const serve = await startServe({ algorithm: 'sliding-log', limit: '2', window: '1m', log: true });
    try {
      const replies = await getMany(serve.url, 3);
      expect(replies.map((r) => [r.status, r.headers['ratelimit-policy']])).toEqual([
        [200, '"default";q=2;w=60'],
        [200, '"default";q=2;w=60'],
        [429, '"default";q=2;w=60'],
      ]);
    } finally {
      await serve.stop();
    }
    const lines = serve.io.out().trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d\.\d{3} 127\.0\.0\.1 GET \/ 200 default remaining=1\/2 \d+\.\dms$/);
    expect(lines[2]).toMatch(/ GET \/ 429 default remaining=0\/2 retry-after=60 /);
  });

  it('keeps API keys and addresses apart: a key naming an address does not spend its quota', async () => {
    for (const options of [{ tiers: exampleTiers }, { algorithm: 'fixed-window', limit: '5', window: '10s' }]) {
      const serve = await startServe({ ...options, clock: new ManualClock(1_000) });
      try {
        const attacker = await getMany(serve.url, 5, { from: '127.0.0.2', headers: { 'X-API-Key': '127.0.0.3' } });
        expect(attacker.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
        // The attacker spent its own address's quota, not its victim's.
        expect((await get(serve.url, { from: '127.0.0.2' })).status).toBe(429);
        expect((await get(serve.url, { from: '127.0.0.3' })).status).toBe(200);
      } finally {
        await serve.stop();
      }
    }
  });

  it('a fresh unknown API key per request buys no quota: it is limited by the address', async () => {
    const serve = await startServe({ tiers: exampleTiers, clock: new ManualClock(1_000) });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++)
        statuses.push((await get(serve.url, { headers: { 'X-API-Key': `random-${i}` } })).status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      // A key the tiers file knows is an identity with a quota of its own.
      expect((await get(serve.url, { headers: { 'X-API-Key': 'acme-corp' } })).status).toBe(200);
    } finally {
      await serve.stop();
    }
  });

  it('--trust-api-keys: every key is a client of its own, still apart from addresses', async () => {
    const serve = await startServe({
      algorithm: 'fixed-window',
      limit: '1',
      window: '10s',
      trustApiKeys: true,
      clock: new ManualClock(1_000),
    });
    try {
      const as = (from: string, apiKey?: string) =>
        get(serve.url, { from, ...(apiKey ? { headers: { 'X-API-Key': apiKey } } : {}) }).then((r) => r.status);
      expect([await as('127.0.0.2', 'a'), await as('127.0.0.2', 'b'), await as('127.0.0.2', 'a')]).toEqual([
        200, 200, 429,
      ]);
      // A key spelling an address is a key: the address keeps its quota.
      expect([await as('127.0.0.2', '127.0.0.3'), await as('127.0.0.3')]).toEqual([200, 200]);
    } finally {
      await serve.stop();
    }
  });

  it('keys by X-Forwarded-For only with --trust-proxy', async () => {
    const serve = await startServe({
      algorithm: 'fixed-window',
      limit: '1',
      window: '1m',
      trustProxy: '1',
      clock: new ManualClock(1_000),
    });
    try {
      const as = (xff: string) => get(serve.url, { headers: { 'X-Forwarded-For': xff } }).then((r) => r.status);
      expect([await as('198.51.100.1'), await as('198.51.100.2'), await as('198.51.100.1')]).toEqual([200, 200, 429]);
    } finally {
      await serve.stop();
    }
  });

  it.each([
    [['serve', '--tiers', 'examples/tiers.yaml', '--limit', '3'], /--limit: not with --tiers/],
    [['serve', '--algorithm', 'leaky'], /--algorithm: expected one of/],
    [['serve', '--limit', '-1'], /--limit: expected a whole number/],
    [['serve', '--window', '1 fortnight'], /--window: expected a duration/],
    [['serve', '--port', '70000'], /--port: expected a whole number from 0 to 65535/],
    [['serve', '--trust-proxy', 'proxy.local'], /trustProxy: expected an IP address or CIDR range/],
    [['serve', '--tiers', 'missing.yaml'], /missing\.yaml: no such file/],
  ])('refuses %j with one line and exit 2', async (argv, message) => {
    const io = bufferIO({ cwd: fileURLToPath(new URL('../..', import.meta.url)) });
    expect(await run(argv, io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });

  it('says so, exit 2, when the port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    try {
      const io = bufferIO();
      expect(await run(['serve', '--port', String(port)], io)).toBe(2);
      expect(io.err()).toBe(
        `ratelab: cannot listen on 127.0.0.1:${port}: the port is in use (pick another with --port)\n`,
      );
    } finally {
      blocker.close();
    }
  });
});
