import type { IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, RateLimiterRegistry, createLimiter, type Decision, type RatelabError } from '../../src/index.js';
import type { FailMode } from '../../src/core/fail-over.js';
import { parseTiers } from '../../src/tiers/load-tiers.js';
import { rateLimit, rateLimitResult, type LimiterLike, type RateLimitOptions } from '../../src/http/middleware.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import type { RedisClient } from '../../src/redis/run-script.js';
import { expectRatelabError } from '../support/errors.js';
import { get, getMany, listen } from './support.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const ok = (_req: IncomingMessage, res: ServerResponse) => {
  res.setHeader('Content-Type', 'text/plain');
  res.end('ok');
};

/** A node:http server: the middleware with the handler as `next`. */
async function nodeServer(options: RateLimitOptions): Promise<string> {
  const limit = rateLimit(options);
  const server = await listen((req, res) => void limit(req, res, () => ok(req, res)));
  servers.push(server);
  return server.url;
}

/** The same middleware in an Express app. */
async function expressServer(options: RateLimitOptions): Promise<string> {
  const app = express();
  app.use(rateLimit(options));
  app.get('/', (_req, res) => {
    res.type('text/plain').send('ok');
  });
  const server = await listen(app);
  servers.push(server);
  return server.url;
}

const stacks = [
  ['node:http', nodeServer],
  ['express', expressServer],
] as const;

describe.each(stacks)('rateLimit on %s', (_, start) => {
  it('admits up to the limit with counting headers, then answers 429 with Retry-After and a JSON body', async () => {
    const clock = new ManualClock(0);
    const url = await start({ limiter: createLimiter('fixed-window', { limit: 3, windowMs: 2500 }, { clock }) });
    clock.set(500);
    const replies = await getMany(url, 4);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 429]);
    expect(replies.map((r) => r.headers['x-ratelimit-limit'])).toEqual(['3', '3', '3', '3']);
    expect(replies.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['2', '1', '0', '0']);
    // 2000 ms left in the window: 2 s, exactly.
    expect(replies.map((r) => r.headers['x-ratelimit-reset'])).toEqual(['2', '2', '2', '2']);
    expect(replies.slice(0, 3).map((r) => r.body)).toEqual(['ok', 'ok', 'ok']);
    const denied = replies[3]!;
    expect(denied.headers['retry-after']).toBe('2');
    expect(denied.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(denied.body)).toEqual({
      error: 'too_many_requests',
      message: 'Rate limit exceeded; retry in 2 s.',
      policy: 'default',
      retryAfter: 2,
    });
  });

  it('rounds Retry-After and Reset up to whole seconds', async () => {
    const clock = new ManualClock(0);
    const url = await start({ limiter: createLimiter('sliding-log', { limit: 1, windowMs: 60_000 }, { clock }) });
    expect((await get(url)).status).toBe(200);
    clock.set(100); // the quota returns at 60 000 ms: 59.9 s from now
    const denied = await get(url);
    expect([denied.status, denied.headers['retry-after'], denied.headers['x-ratelimit-reset']]).toEqual([
      429,
      '60',
      '60',
    ]);
    clock.set(59_999); // 1 ms left: still a whole second, never 0
    const last = await get(url);
    expect([last.status, last.headers['retry-after'], last.headers['x-ratelimit-reset']]).toEqual([429, '1', '1']);
    clock.set(60_000);
    expect((await get(url)).status).toBe(200);
  });

  it('sends the IETF draft-10 fields when asked, agreeing with the decision', async () => {
    const clock = new ManualClock(0);
    const url = await start({
      limiter: createLimiter('token-bucket', { limit: 2, windowMs: 1000 }, { clock }),
      headers: { ietf: { policyName: 'free' } },
    });
    const [first, second, third] = await getMany(url, 3);
    expect(first!.headers['ratelimit-policy']).toBe('"free";q=2;w=1');
    expect([first!.headers.ratelimit, second!.headers.ratelimit]).toEqual(['"free";r=1;t=1', '"free";r=0;t=1']);
    expect(third!.status).toBe(429);
    expect(third!.headers.ratelimit).toBe('"free";r=0;t=1');
    expect(third!.headers['retry-after']).toBe('1');
  });

  it('keys by client address by default: each client has its own quota', async () => {
    const clock = new ManualClock(0);
    const url = await start({ limiter: createLimiter('sliding-log', { limit: 1, windowMs: 1000 }, { clock }) });
    expect((await get(url, { from: '127.0.0.2' })).status).toBe(200);
    expect((await get(url, { from: '127.0.0.2' })).status).toBe(429);
    expect((await get(url, { from: '127.0.0.3' })).status).toBe(200);
  });

  it('ignores X-Forwarded-For unless told to trust a proxy', async () => {
    const clock = new ManualClock(0);
    const url = await start({ limiter: createLimiter('sliding-log', { limit: 1, windowMs: 1000 }, { clock }) });
    expect((await get(url, { headers: { 'X-Forwarded-For': '198.51.100.1' } })).status).toBe(200);
    // A forged header buys no fresh quota.
    expect((await get(url, { headers: { 'X-Forwarded-For': '198.51.100.2' } })).status).toBe(429);
  });

  it('with a trusted proxy, keys by the right-most untrusted X-Forwarded-For address', async () => {
    const clock = new ManualClock(0);
    const url = await start({
      limiter: createLimiter('sliding-log', { limit: 1, windowMs: 1000 }, { clock }),
      trustProxy: ['127.0.0.1'],
    });
    const as = (xff: string) => get(url, { headers: { 'X-Forwarded-For': xff } }).then((r) => r.status);
    expect(await as('198.51.100.1')).toBe(200);
    expect(await as('198.51.100.2')).toBe(200);
    // The client prepends a fake address; the proxy appended the real one, which is still limited.
    expect(await as('203.0.113.50, 198.51.100.1')).toBe(429);
    // A request not through the trusted proxy (peer 127.0.0.9) is keyed by its peer.
    expect((await get(url, { from: '127.0.0.9', headers: { 'X-Forwarded-For': '198.51.100.3' } })).status).toBe(200);
    expect((await get(url, { from: '127.0.0.9', headers: { 'X-Forwarded-For': '198.51.100.4' } })).status).toBe(429);
  });

  it('groups IPv6 clients by their /64 by default, IPv4 clients by address', async () => {
    const clock = new ManualClock(0);
    const url = await start({
      limiter: createLimiter('sliding-log', { limit: 5, windowMs: 1000 }, { clock }),
      trustProxy: 1,
    });
    const as = (xff: string) => get(url, { headers: { 'X-Forwarded-For': xff } }).then((r) => r.status);
    const oneSlash64: number[] = [];
    for (let i = 1; i <= 50; i++) oneSlash64.push(await as(`2001:db8:1:2::${i.toString(16)}`));
    expect(oneSlash64.filter((status) => status === 200)).toHaveLength(5);
    // The neighbouring /64 and IPv4 clients (mapped or not) each have a quota of their own.
    expect(await as('2001:db8:1:3::1')).toBe(200);
    expect(await as('198.51.100.1')).toBe(200);
    expect(await as('::ffff:198.51.100.2')).toBe(200);
  });

  it('ipv6Subnet sets the IPv6 grouping; false keys each IPv6 address', async () => {
    const clock = new ManualClock(0);
    const limiter = () => createLimiter('sliding-log', { limit: 1, windowMs: 1000 }, { clock });
    const wide = await start({ limiter: limiter(), trustProxy: 1, ipv6Subnet: 48 });
    const wideAs = (xff: string) => get(wide, { headers: { 'X-Forwarded-For': xff } }).then((r) => r.status);
    expect(await wideAs('2001:db8:1:2::1')).toBe(200);
    expect(await wideAs('2001:db8:1:ffff::1')).toBe(429);
    const exact = await start({ limiter: limiter(), trustProxy: 1, ipv6Subnet: false });
    const exactAs = (xff: string) => get(exact, { headers: { 'X-Forwarded-For': xff } }).then((r) => r.status);
    expect(await exactAs('2001:db8:1:2::1')).toBe(200);
    expect(await exactAs('2001:db8:1:2::2')).toBe(200);
    expect(() => rateLimit({ limiter: limiter(), ipv6Subnet: 200 })).toThrow(/ipv6Subnet/);
  });

  it('uses a custom key; requests without one share a quota, or are refused with 400', async () => {
    const clock = new ManualClock(0);
    const key = (req: IncomingMessage) => req.headers['x-api-key'] as string | undefined;
    const shared = await start({ limiter: createLimiter('sliding-log', { limit: 1, windowMs: 1000 }, { clock }), key });
    expect((await get(shared, { headers: { 'X-API-Key': 'a' } })).status).toBe(200);
    expect((await get(shared, { headers: { 'X-API-Key': 'b' } })).status).toBe(200);
    expect((await get(shared)).status).toBe(200);
    expect((await get(shared, { from: '127.0.0.4' })).status).toBe(429);
    const strict = await start({
      limiter: createLimiter('sliding-log', { limit: 1, windowMs: 1000 }, { clock }),
      key,
      noKey: 'reject',
    });
    const refused = await get(strict);
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body).error).toBe('no_client_key');
  });

  it('charges a cost per request; a cost above the capacity is refused for good, without Retry-After', async () => {
    const clock = new ManualClock(0);
    const url = await start({
      limiter: createLimiter('gcra', { limit: 5, windowMs: 1000 }, { clock }),
      cost: (req) => Number(req.headers['x-cost'] ?? 1),
    });
    const big = await get(url, { headers: { 'X-Cost': '4' } });
    expect([big.status, big.headers['x-ratelimit-remaining']]).toEqual([200, '1']);
    const never = await get(url, { headers: { 'X-Cost': '6' } });
    expect(never.status).toBe(429);
    expect(never.headers['retry-after']).toBeUndefined();
    expect(JSON.parse(never.body)).toMatchObject({ error: 'cost_exceeds_limit', policy: 'default' });
  });

  it('runs onLimited with status and headers already set', async () => {
    const clock = new ManualClock(0);
    const onLimited = (_req: IncomingMessage, res: ServerResponse, info: { retryAfter: number | undefined }) =>
      res.end(`slow down for ${info.retryAfter}s`);
    const url = await start({
      limiter: createLimiter('fixed-window', { limit: 1, windowMs: 1000 }, { clock }),
      onLimited,
    });
    await get(url);
    const denied = await get(url);
    expect([denied.status, denied.headers['retry-after'], denied.body]).toEqual([429, '1', 'slow down for 1s']);
  });

  it('sends one policy per limit for a limiter of several limits, X-RateLimit-* of the binding one', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(
      'fixed-window',
      [
        { limit: 2, windowMs: 1000, name: 'burst' },
        { limit: 3, windowMs: 60_000 },
      ],
      { clock },
    );
    const url = await start({ limiter, headers: { ietf: true } });
    const replies = await getMany(url, 3);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
    expect(replies[0]!.headers['ratelimit-policy']).toBe('"burst";q=2;w=1, "1m";q=3;w=60');
    // Denied by the burst limit: its wait; the 1m limit took 2 of its 3 and nothing for the denial.
    expect([replies[2]!.headers.ratelimit, replies[2]!.headers['retry-after']]).toEqual([
      '"burst";r=0;t=1, "1m";r=1;t=60',
      '1',
    ]);
    expect([replies[2]!.headers['x-ratelimit-limit'], replies[2]!.headers['x-ratelimit-remaining']]).toEqual([
      '2',
      '0',
    ]);
  });

  it('waits for an async limiter (an async wrapper of a memory limiter)', async () => {
    const clock = new ManualClock(0);
    const memory = createLimiter('sliding-counter', { limit: 2, windowMs: 1000 }, { clock });
    const limiter: LimiterLike = {
      limits: memory.limits,
      consume: (key, cost) =>
        new Promise<Decision>((resolve) => setImmediate(() => resolve(memory.consume(key, cost)))),
    };
    const url = await start({ limiter, headers: { ietf: true } });
    const replies = await getMany(url, 3);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
    // The sliding counter weighs the previous window in: 2 in window [0, 1 s) fade out only at 1.5 s.
    expect(replies.map((r) => r.headers.ratelimit)).toEqual([
      '"default";r=1;t=2',
      '"default";r=0;t=2',
      '"default";r=0;t=2',
    ]);
    expect(replies[2]!.headers['retry-after']).toBe('2');
  });

  it.each([
    ['rejects', () => Promise.reject(new Error('redis down'))],
    [
      'throws',
      () => {
        throw new Error('redis down');
      },
    ],
  ])('a limiter that %s fails closed by default: 503, no crash, onError told', async (_, consume) => {
    const onError = vi.fn();
    const url = await start({ limiter: { consume } as LimiterLike, onError });
    const replies = await getMany(url, 2);
    expect(replies.map((r) => r.status)).toEqual([503, 503]);
    expect(JSON.parse(replies[0]!.body).error).toBe('rate_limiter_unavailable');
    expect(onError).toHaveBeenCalledTimes(2);
    expect((onError.mock.calls[0]![0] as Error).message).toBe('redis down');
  });

  it("follows the limiter's own fail-open mode: the request passes, without rate-limit headers", async () => {
    const onError = vi.fn();
    const url = await start({
      limiter: { failMode: 'open', consume: () => Promise.reject(new Error('redis down')) },
      onError,
    });
    const reply = await get(url);
    expect([reply.status, reply.body, reply.headers['x-ratelimit-limit']]).toEqual([200, 'ok', undefined]);
    expect(onError).toHaveBeenCalledOnce();
  });

  it('decides by tier with a registry: the policy name is the tier; an unlimited tier gets no headers', async () => {
    const clock = new ManualClock(0);
    const config = parseTiers(
      'tiers:\n  free: { algorithm: fixed-window, limit: 1, window: 1s }\n  pro: { algorithm: token-bucket, limit: 3, window: 1s, burst: 5 }\n  internal: unlimited\nclients:\n  pro-key: pro\n  ops-key: internal\ndefault: free\n',
    );
    const key = (req: IncomingMessage) => (req.headers['x-api-key'] as string | undefined) ?? 'anonymous';
    const url = await start({ registry: new RateLimiterRegistry(config, { clock }), key, headers: { ietf: true } });
    const free = await getMany(url, 2);
    expect(free.map((r) => [r.status, r.headers['ratelimit-policy'], r.headers.ratelimit])).toEqual([
      [200, '"free";q=1;w=1', '"free";r=0;t=1'],
      [429, '"free";q=1;w=1', '"free";r=0;t=1'],
    ]);
    const pro = await get(url, { headers: { 'X-API-Key': 'pro-key' } });
    expect([
      pro.status,
      pro.headers['x-ratelimit-limit'],
      pro.headers['ratelimit-policy'],
      pro.headers.ratelimit,
    ]).toEqual([200, '5', '"pro";q=3;w=1;ratelab-burst=5', '"pro";r=4;t=1']);
    const ops = await getMany(url, 3, { headers: { 'X-API-Key': 'ops-key' } });
    expect(ops.map((r) => [r.status, r.headers['x-ratelimit-limit'], r.headers.ratelimit])).toEqual(
      Array(3).fill([200, undefined, undefined]),
    );
  });
});

describe('rateLimit setup', () => {
  it('needs exactly one of limiter and registry', () => {
    expect(() => rateLimit({})).toThrow(/exactly one of limiter and registry/);
  });

  it('refuses a policy name that cannot be sent in a header', () => {
    const limiter = createLimiter('gcra', { limit: 1, windowMs: 1000 });
    expect(() => rateLimit({ limiter, headers: { ietf: { policyName: 'grüne' } } })).toThrow(/printable ASCII/);
  });

  // Tier names are held to the header rule by the tiers schema itself (what serve and
  // check-tiers both load); a single limiter's policy name only when it is sent.
  it('refuses a tier name that cannot be sent in a header, and checks a policy name only when it is sent in the IETF fields', () => {
    expect(() => parseTiers('tiers:\n  grüne: { algorithm: gcra, limit: 1, window: 1s }\ndefault: grüne\n')).toThrow(
      /tiers\.grüne: tier name "grüne": expected printable ASCII/,
    );
    const limiter = createLimiter('gcra', { limit: 1, windowMs: 1000 });
    expect(() => rateLimit({ limiter, headers: { ietf: { policyName: 'grüne' } } })).toThrow(/printable ASCII/);
    expect(() => rateLimit({ limiter, headers: { legacy: true } })).not.toThrow();
  });

  it('records each decision for logging', async () => {
    const clock = new ManualClock(0);
    const limit = rateLimit({ limiter: createLimiter('gcra', { limit: 1, windowMs: 1000 }, { clock }) });
    const seen: unknown[] = [];
    const server = await listen(
      (req, res) => void limit(req, res, () => ok(req, res)).then(() => seen.push(rateLimitResult(req))),
    );
    servers.push(server);
    await getMany(server.url, 2);
    expect(seen).toMatchObject([
      { outcome: 'allowed', key: '127.0.0.1', policy: 'default', decision: { allowed: true } },
      { outcome: 'denied', key: '127.0.0.1', policy: 'default', decision: { allowed: false, retryAfterMs: 1000 } },
    ]);
  });
});

describe('rateLimit refuses bad options when it is made, naming the option', () => {
  const limiter = () => createLimiter('gcra', { limit: 5, windowMs: 1000 }, { clock: new ManualClock(0) });
  it.each<[string, Partial<Record<string, unknown>>, string, string]>([
    ['a negative cost', { cost: -1 }, 'INVALID_COST', 'cost'],
    ['a fractional cost', { cost: 1.5 }, 'INVALID_COST', 'cost'],
    ['a cost that is a string', { cost: '2' }, 'INVALID_COST', 'cost'],
    ['a misspelt failMode', { failMode: 'opne' }, 'INVALID_ARGUMENT', 'failMode'],
    ['an unknown noKey', { noKey: 'bogus' }, 'INVALID_ARGUMENT', 'noKey'],
    [
      'a policyName that is a number',
      { headers: { ietf: { policyName: 5 } } },
      'INVALID_ARGUMENT',
      'headers.ietf.policyName',
    ],
    ['a key that is not a function', { key: 'x-api-key' }, 'INVALID_ARGUMENT', 'key'],
    ['an onLimited that is not a function', { onLimited: true }, 'INVALID_ARGUMENT', 'onLimited'],
    ['an onError that is not a function', { onError: 'log' }, 'INVALID_ARGUMENT', 'onError'],
    ['a limiter without consume', { limiter: {} }, 'INVALID_ARGUMENT', 'limiter'],
  ])('%s', (_what, bad, code, field) => {
    expectRatelabError(
      () => rateLimit({ limiter: limiter(), ...bad } as RateLimitOptions),
      code as RatelabError['code'],
      field,
    );
  });

  it('refuses a limiter that declares an unknown failMode', () => {
    expectRatelabError(
      () => rateLimit({ limiter: { consume: () => limiter().consume('k'), failMode: 'sometimes' as FailMode } }),
      'INVALID_ARGUMENT',
      'limiter.failMode',
    );
  });

  it.each<[string, Partial<RateLimitOptions>]>([
    ['cost 0 (a request that only asks)', { cost: 0 }],
    ['a cost function', { cost: () => 2 }],
    ["noKey 'reject'", { noKey: 'reject' }],
    ["noKey 'share'", { noKey: 'share' }],
    ['ietf without a policyName', { headers: { ietf: {} } }],
  ])('accepts %s', (_what, good) => {
    expect(() => rateLimit({ limiter: limiter(), ...good })).not.toThrow();
  });
});

describe("when consume throws: the limiter's declared failMode, or the middleware's own, decides", () => {
  const down = () => Promise.reject(new Error('store down'));
  it.each<{ declared: FailMode | undefined; option: FailMode | undefined; status: number }>([
    { declared: undefined, option: undefined, status: 503 },
    { declared: 'open', option: undefined, status: 200 },
    { declared: 'closed', option: undefined, status: 503 },
    // A limiter in `local` mode already decides in memory while its store is down: a throw is a bug, so deny.
    { declared: 'local', option: undefined, status: 503 },
    { declared: 'local', option: 'open', status: 200 },
    { declared: 'open', option: 'closed', status: 503 },
    { declared: 'open', option: 'local', status: 503 },
    { declared: undefined, option: 'open', status: 200 },
  ])('limiter $declared, option $option: $status', async ({ declared, option, status }) => {
    const limiter: LimiterLike = declared === undefined ? { consume: down } : { consume: down, failMode: declared };
    const seen: (string | undefined)[] = [];
    const limit = rateLimit({
      limiter,
      onError: () => undefined,
      ...(option === undefined ? {} : { failMode: option }),
    });
    const server = await listen(
      (req, res) => void limit(req, res, () => ok(req, res)).then(() => seen.push(rateLimitResult(req)?.outcome)),
    );
    servers.push(server);
    expect((await get(server.url)).status).toBe(status);
    expect(seen).toEqual([status === 200 ? 'failed-open' : 'failed-closed']);
  });

  it('reads the failMode a Redis limiter declares; a bad cost under local answers 503', async () => {
    const redis = { evalsha: down, eval: down } as unknown as RedisClient;
    const limiter = createRedisLimiter(
      'gcra',
      { limit: 5, windowMs: 1000 },
      { redis, failMode: 'local', expectedNodes: 2 },
    );
    expect(limiter.failMode).toBe('local');
    const onError = vi.fn();
    const url = await nodeServer({ limiter, cost: () => -1, onError });
    expect((await get(url)).status).toBe(503);
    expect((onError.mock.calls[0]![0] as RatelabError).code).toBe('INVALID_COST');
  });

  it('refuses an unknown failMode when the middleware is made', () => {
    const error = expectRatelabError(
      () => rateLimit({ limiter: { consume: down }, failMode: 'sometimes' as FailMode }),
      'INVALID_ARGUMENT',
      'failMode',
    );
    expect(error.message).toBe(`failMode: expected 'open', 'closed' or 'local', got "sometimes"`);
  });
});

describe('a misbehaving limiter or handler is a limiter failure: the fail mode applies and the promise never rejects', () => {
  /** A node:http server recording how each middleware promise settled and each outcome. */
  async function watched(
    options: RateLimitOptions,
  ): Promise<{ url: string; settled: string[]; outcomes: (string | undefined)[] }> {
    const limit = rateLimit(options);
    const settled: string[] = [];
    const outcomes: (string | undefined)[] = [];
    const server = await listen((req, res) => {
      void limit(req, res, () => ok(req, res)).then(
        () => settled.push('resolved'),
        () => settled.push('rejected'),
      );
      res.on('finish', () => outcomes.push(rateLimitResult(req)?.outcome));
    });
    servers.push(server);
    return { url: server.url, settled, outcomes };
  }

  /** How each fail mode answers a failure: its status and recorded outcome. */
  const FAIL_MODE_ANSWERS = [
    ['closed', 503, 'failed-closed'],
    ['open', 200, 'failed-open'],
  ] as const;
  const denying = () => createLimiter('fixed-window', { limit: 1, windowMs: 1000 }, { clock: new ManualClock(0) });

  it.each<[string, LimiterLike['consume']]>([
    ['undefined', () => undefined as unknown as Decision],
    ['null', () => null as unknown as Decision],
    ['a promise of undefined', () => Promise.resolve(undefined as unknown as Decision)],
    ['an empty object', () => ({}) as Decision],
    [
      'allowed that is not a boolean',
      () => ({ allowed: 'yes', limit: 5, remaining: 4, retryAfterMs: 0, resetMs: 0 }) as unknown as Decision,
    ],
    ['a NaN remaining', () => ({ allowed: true, limit: 5, remaining: Number.NaN, retryAfterMs: 0, resetMs: 0 })],
  ])(
    'consume returning %s: INVALID_DECISION to onError, 503 when closed, through when open',
    async (_what, consume) => {
      for (const [failMode, status, outcome] of FAIL_MODE_ANSWERS) {
        const onError = vi.fn();
        const { url, settled, outcomes } = await watched({ limiter: { consume }, failMode, onError });
        const reply = await get(url);
        expect(reply.status).toBe(status);
        expect(reply.headers['x-ratelimit-limit']).toBeUndefined();
        expect(settled).toEqual(['resolved']);
        expect(outcomes).toEqual([outcome]);
        expect(onError).toHaveBeenCalledTimes(1);
        expect((onError.mock.calls[0]![0] as RatelabError).code).toBe('INVALID_DECISION');
      }
    },
  );

  it.each<[string, RateLimitOptions['onLimited']]>([
    [
      'throws',
      () => {
        throw new Error('handler bug');
      },
    ],
    ['rejects', () => Promise.reject(new Error('handler bug')) as unknown as void],
  ])('onLimited that %s: onError is told, 503 when closed, through when open', async (_what, onLimited) => {
    for (const [failMode, status, outcome] of FAIL_MODE_ANSWERS) {
      const onError = vi.fn();
      const { url, settled, outcomes } = await watched({ limiter: denying(), failMode, onError, onLimited });
      const replies = await getMany(url, 2);
      expect(replies.map((r) => r.status)).toEqual([200, status]);
      // Fail open goes on as if unlimited: the denial's fields are taken back.
      if (failMode === 'open')
        expect([
          replies[1]!.body,
          replies[1]!.headers['x-ratelimit-limit'],
          replies[1]!.headers['retry-after'],
        ]).toEqual(['ok', undefined, undefined]);
      expect(settled).toEqual(['resolved', 'resolved']);
      expect(outcomes).toEqual(['allowed', outcome]);
      expect((onError.mock.calls[0]![0] as Error).message).toBe('handler bug');
    }
  });

  it('an onError that throws changes nothing: the fail mode still answers', async () => {
    const onError = () => {
      throw new Error('logger down');
    };
    const { url, settled } = await watched({
      limiter: { consume: () => Promise.reject(new Error('store down')) },
      onError,
    });
    expect((await get(url)).status).toBe(503);
    expect(settled).toEqual(['resolved']);
  });
});
