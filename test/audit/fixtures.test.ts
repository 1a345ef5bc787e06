// The real limiters the audit tests probe (test/audit/fixtures/), each checked here from the
// outside with plain node:http requests from loopback source addresses (127.0.0.2, ...), as the
// audit client sends them: what each admits, what it denies with, and what it keys on.
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startBrokenLimiter } from './fixtures/broken-limiter.js';
import { startChildServer, type Fixture } from './fixtures/child-server.js';
import { startExpressRateLimit } from './fixtures/express-rate-limit.js';
import { startNginx } from './fixtures/nginx.js';
import { startRateLimiterFlexible } from './fixtures/rate-limiter-flexible.js';
import { startRatelabServe } from './fixtures/ratelab-serve.js';

/** One answer, as the client saw it; `heldMs` is from sending to the end of the body. */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  heldMs: number;
}

/** GET `path` of `url` from source address `from`, with `headers`, on a connection of its own. */
function get(url: string, from: string, headers: Record<string, string> = {}, path = '/'): Promise<Answer> {
  const sent = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { localAddress: from, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body, heldMs: performance.now() - sent }),
      );
    });
    req.once('error', reject);
    req.end();
  });
}

/** `count` requests one after another (each sent once the previous one is answered). */
async function inSequence(count: number, send: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await send());
  return answers;
}

/** `count` requests all sent at once. */
function atOnce(count: number, send: () => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(Array.from({ length: count }, send));
}

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);
const admitted = (answers: Answer[]) => answers.filter((answer) => answer.status === 200).length;
const repeat = <T>(value: T, count: number): T[] => Array.from({ length: count }, () => value);

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.stop();
  fixture = undefined;
});

/** Starts `start()` as this test's fixture (stopped after the test) and returns its URL. */
async function using(start: () => Promise<Fixture>): Promise<string> {
  fixture = await start();
  return fixture.url;
}

describe('ratelab serve fixture', () => {
  it('admits the limit per source address, then denies that address with 429 while a new address is admitted', async () => {
    // An hour: its fixed windows align to the clock, and a boundary inside the test would refill it.
    const url = await using(() => startRatelabServe({ algorithm: 'fixed-window', limit: 5, window: '1h' }));
    expect(statuses(await inSequence(7, () => get(url, '127.0.0.2')))).toEqual([...repeat(200, 5), 429, 429]);
    expect((await get(url, '127.0.0.3')).status).toBe(200);
  });

  it('admits the burst at once from a full token bucket', async () => {
    const url = await using(() => startRatelabServe({ algorithm: 'token-bucket', limit: 1, window: '10s', burst: 8 }));
    expect(admitted(await atOnce(12, () => get(url, '127.0.0.2')))).toBe(8);
  });

  it('with trustApiKeys, gives each X-API-Key its own quota on one address', async () => {
    const url = await using(() =>
      startRatelabServe({ algorithm: 'sliding-log', limit: 3, window: '10s', trustApiKeys: true }),
    );
    const alice = await inSequence(4, () => get(url, '127.0.0.2', { 'X-API-Key': 'alice' }));
    expect(statuses(alice)).toEqual([200, 200, 200, 429]);
    expect((await get(url, '127.0.0.2', { 'X-API-Key': 'bob' })).status).toBe(200);
  });
});

describe('express-rate-limit fixture', () => {
  it.each([
    {
      standardHeaders: 'draft-7' as const,
      legacyHeaders: false,
      retryAfter: true,
      sends: ['ratelimit', 'ratelimit-policy'],
      omits: ['x-ratelimit-limit'],
      why: 'draft-7: one RateLimit header (limit, remaining, reset) and RateLimit-Policy',
    },
    {
      standardHeaders: 'draft-8' as const,
      legacyHeaders: true,
      sends: [
        'retry-after',
        'ratelimit',
        'ratelimit-policy',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ],
      omits: [],
      why: 'draft-8 (named policy) and the legacy X-RateLimit-* beside it',
    },
    {
      standardHeaders: false as const,
      legacyHeaders: false,
      sends: [],
      retryAfter: false,
      omits: ['retry-after', 'ratelimit', 'ratelimit-policy', 'x-ratelimit-limit'],
      why: 'no rate-limit headers at all, not even Retry-After: only the status tells',
    },
  ])(
    'admits the limit per address, then 429 with the headers configured ($why)',
    async ({ standardHeaders, legacyHeaders, retryAfter, sends, omits }) => {
      const url = await using(() =>
        startExpressRateLimit({ limit: 4, windowMs: 10_000, standardHeaders, legacyHeaders }),
      );
      const answers = await inSequence(5, () => get(url, '127.0.0.2'));
      expect(statuses(answers)).toEqual([200, 200, 200, 200, 429]);
      const denial = answers[4]!;
      for (const name of sends) expect(denial.headers, name).toHaveProperty(name);
      for (const name of omits) expect(denial.headers, name).not.toHaveProperty(name);
      if (retryAfter) expect(denial.headers['retry-after']).toMatch(/^([1-9]|10)$/);
      expect((await get(url, '127.0.0.3')).status).toBe(200);
    },
  );

  it('with keyHeader, keys on that header: a new key on the same address is admitted', async () => {
    const url = await using(() =>
      startExpressRateLimit({
        limit: 2,
        windowMs: 10_000,
        standardHeaders: 'draft-7',
        legacyHeaders: false,
        keyHeader: 'X-API-Key',
      }),
    );
    expect(statuses(await inSequence(3, () => get(url, '127.0.0.2', { 'X-API-Key': 'a' })))).toEqual([200, 200, 429]);
    expect((await get(url, '127.0.0.2', { 'X-API-Key': 'b' })).status).toBe(200);
  });
});

describe('rate-limiter-flexible fixture', () => {
  it('admits the points per address, then 429 with Retry-After in whole seconds and X-RateLimit-*', async () => {
    const url = await using(() => startRateLimiterFlexible({ points: 4, duration: 10 }));
    const answers = await inSequence(5, () => get(url, '127.0.0.2'));
    expect(statuses(answers)).toEqual([200, 200, 200, 200, 429]);
    expect(answers.map((answer) => answer.headers['x-ratelimit-remaining'])).toEqual(['3', '2', '1', '0', '0']);
    const denial = answers[4]!;
    expect(denial.headers['retry-after']).toMatch(/^\d+$/);
    expect(Number(denial.headers['retry-after'])).toBeGreaterThanOrEqual(5);
    expect(Number(denial.headers['retry-after'])).toBeLessThanOrEqual(10);
    expect(denial.headers['x-ratelimit-limit']).toBe('4');
    expect(Number(denial.headers['x-ratelimit-reset']) * 1000).toBeGreaterThan(Date.now());
    expect((await get(url, '127.0.0.3')).status).toBe(200);
  });

  it('with keyHeader, keys on that header: a new key on the same address is admitted', async () => {
    const url = await using(() => startRateLimiterFlexible({ points: 2, duration: 10, keyHeader: 'X-API-Key' }));
    expect(statuses(await inSequence(3, () => get(url, '127.0.0.2', { 'X-API-Key': 'a' })))).toEqual([200, 200, 429]);
    expect((await get(url, '127.0.0.2', { 'X-API-Key': 'b' })).status).toBe(200);
  });
});

describe('nginx limit_req fixture', () => {
  // rate=1r/s: sending 30 at once takes well under the 1 s in which a place would leak back.
  it.each([
    { status: undefined, denial: 503, why: "limit_req_status unset: nginx's default 503" },
    { status: 429, denial: 429, why: 'limit_req_status 429' },
  ])('with burst=20 nodelay admits 21 of 30 sent at once and denies the rest ($why)', async ({ status, denial }) => {
    const url = await using(() => startNginx({ rate: 1, burst: 20, nodelay: true, ...(status ? { status } : {}) }));
    const answers = await atOnce(30, () => get(url, '127.0.0.2'));
    expect(admitted(answers)).toBe(21);
    expect(answers.filter((answer) => answer.status === denial)).toHaveLength(9);
    expect((await get(url, '127.0.0.3')).status).toBe(200);
  });

  it('without nodelay delays the queued requests to the rate instead of denying them', async () => {
    // rate=2r/s burst=3: one admitted at once, three queued (released 0.5 s apart), two denied.
    const url = await using(() => startNginx({ rate: 2, burst: 3, nodelay: false }));
    const answers = await atOnce(6, () => get(url, '127.0.0.2'));
    expect(statuses(answers).sort()).toEqual([200, 200, 200, 200, 503, 503]);
    const held = answers.filter((answer) => answer.status === 200).map((answer) => answer.heldMs);
    // The last queued one leaves the queue 1.5 s after the first: held at least two intervals.
    expect(Math.max(...held)).toBeGreaterThanOrEqual(1000);
  });
});

describe('broken limiter fixture', () => {
  it('race: limits sequential requests exactly (429, Retry-After in whole seconds) but over-admits 32 at once', async () => {
    const url = await using(() => startBrokenLimiter({ mode: 'race', limit: 5, windowMs: 10_000 }));
    const sequential = await inSequence(7, () => get(url, '127.0.0.2'));
    expect(statuses(sequential)).toEqual([...repeat(200, 5), 429, 429]);
    expect(sequential[5]!.headers['retry-after']).toMatch(/^([1-9]|10)$/);
    expect(admitted(await atOnce(32, () => get(url, '127.0.0.3')))).toBeGreaterThan(5);
  });

  it('retry-after-ms: limits exactly, also 32 at once, but its Retry-After counts milliseconds', async () => {
    const url = await using(() => startBrokenLimiter({ mode: 'retry-after-ms', limit: 3, windowMs: 5000 }));
    const sequential = await inSequence(4, () => get(url, '127.0.0.2'));
    expect(statuses(sequential)).toEqual([200, 200, 200, 429]);
    // The window has most of its 5 s left: as milliseconds that is thousands, as seconds it would be 5 at most.
    const retryAfter = Number(sequential[3]!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(1000);
    expect(retryAfter).toBeLessThanOrEqual(5000);
    expect(admitted(await atOnce(32, () => get(url, '127.0.0.3')))).toBe(3);
  });
});

describe('child-server launcher', () => {
  it.each([
    {
      script: 'console.error("cannot bind\\nport taken"); process.exit(3)',
      timeoutMs: 10_000,
      message: /^dying server exited \(code 3\) before listening: cannot bind \| port taken$/,
      why: 'a child that dies first: one line quoting its stderr',
    },
    {
      script: 'console.error("still starting"); setInterval(() => {}, 1000)',
      timeoutMs: 300,
      message: /^dying server did not listen within 300 ms: still starting$/,
      why: 'a child that never says its URL: killed after the timeout, its stderr quoted',
    },
  ])('rejects with the reason ($why)', async ({ script, timeoutMs, message }) => {
    const start = startChildServer({
      name: 'dying server',
      command: process.execPath,
      args: ['-e', script],
      ready: { stream: 'stdout' },
      timeoutMs,
    });
    await expect(start).rejects.toThrow(message);
  });
});
