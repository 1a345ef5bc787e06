// ratelab/fetch as its users meet it: rateLimitFetch around a Fetch handler, decide for a
// framework that answers itself, rateLimitHono as a (c, next) middleware. All on a
// ManualClock, with Node's own Request and Response (the runtimes themselves:
// test/runtimes/).
import { describe, expect, it, vi } from 'vitest';
import { ManualClock, createLimiter, type RatelabError } from '../../src/index.js';
import type { FailMode } from '../../src/core/fail-over.js';
import {
  cfConnectingIp,
  decide,
  headerKey,
  rateLimitFetch,
  rateLimitHono,
  runtimeAddress,
  type FetchRateLimitOptions,
  type HonoContextLike,
  type RateLimitResult,
} from '../../src/fetch/index.js';
import { expectRatelabError } from '../support/errors.js';

const ok = (..._args: unknown[]) => new Response('ok', { headers: { 'Content-Type': 'text/plain' } });
const request = (headers: Record<string, string> = {}, method = 'GET') =>
  new Request('http://ratelab.test/', { headers, method });
/** What Bun passes a fetch handler after the request: the server, whose requestIP gives the peer. */
const bunServer = (address: string) => ({ requestIP: () => ({ address, family: 'IPv4', port: 1 }) });
/** What Deno passes: the handler info, whose remoteAddr is the peer. */
const denoInfo = (hostname: string) => ({ remoteAddr: { transport: 'tcp', hostname, port: 1 } });

/** The rate-limit fields of a response, by lower-case name. */
function fields(response: Response): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const [name, value] of response.headers) if (/ratelimit|retry-after/.test(name)) seen[name] = value;
  return seen;
}

describe('rateLimitFetch: a fixed window of 3 per 2.5 s, stepped on a ManualClock', () => {
  const clock = new ManualClock(0);
  const limited = rateLimitFetch(ok, {
    limiter: createLimiter('fixed-window', { limit: 3, windowMs: 2500 }, { clock }),
  });
  it.each([
    { at: 500, status: 200, remaining: '2', reset: '2', retryAfter: undefined, why: '2000 ms left in the window: 2 s' },
    { at: 500, status: 200, remaining: '1', reset: '2', retryAfter: undefined, why: 'the second of three' },
    { at: 1600, status: 200, remaining: '0', reset: '1', retryAfter: undefined, why: '900 ms left, rounded up' },
    { at: 1600, status: 429, remaining: '0', reset: '1', retryAfter: '1', why: 'the fourth: denied until 2500' },
    { at: 2499, status: 429, remaining: '0', reset: '1', retryAfter: '1', why: '1 ms left: a whole second, never 0' },
    { at: 2500, status: 200, remaining: '2', reset: '3', retryAfter: undefined, why: 'a new window' },
  ])('at $at ms: $status ($why)', async ({ at, status, remaining, reset, retryAfter }) => {
    clock.set(at);
    const response = await limited(request(), bunServer('203.0.113.7'));
    expect(response.status).toBe(status);
    const expected: Record<string, string> = {
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': remaining,
      'x-ratelimit-reset': reset,
    };
    if (retryAfter !== undefined) expected['retry-after'] = retryAfter;
    expect(fields(response)).toEqual(expected);
    if (status === 429) {
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toMatchObject({ error: 'too_many_requests', policy: 'default' });
    } else expect(await response.text()).toBe('ok');
  });
});

describe('decide: the decision for a framework that answers itself', () => {
  it('answers allowed with the fields to set, and the 429 as a response when the request must not go on', async () => {
    const clock = new ManualClock(0);
    const options: FetchRateLimitOptions = {
      limiter: createLimiter('gcra', { limit: 1, windowMs: 1000 }, { clock }),
      key: () => 'user-1',
      headers: { legacy: false, ietf: { policyName: 'api' } },
    };
    const first = await decide(request(), options);
    expect([first.allowed, first.response, first.result.outcome]).toEqual([true, undefined, 'allowed']);
    expect(Object.fromEntries(first.headers)).toEqual({
      'ratelimit-policy': '"api";q=1;w=1',
      ratelimit: '"api";r=0;t=1',
    });
    clock.set(400);
    const second = await decide(request(), options);
    expect([second.allowed, second.response?.status, second.result.outcome]).toEqual([false, 429, 'denied']);
    expect(Object.fromEntries(second.response!.headers)).toMatchObject({
      'retry-after': '1',
      ratelimit: '"api";r=0;t=1',
    });
  });

  it('names each limit of a composite as a policy of its own; X-RateLimit-* show the binding one', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(
      'sliding-log',
      [
        { limit: 2, windowMs: 1000, name: 'burst' },
        { limit: 5, windowMs: 60_000, name: 'minute' },
      ],
      { clock },
    );
    const options: FetchRateLimitOptions = { limiter, key: () => 'k', headers: { ietf: true } };
    await decide(request(), options);
    const rows = [];
    for (const at of [0, 0]) {
      clock.set(at);
      rows.push(Object.fromEntries((await decide(request(), options)).headers));
    }
    expect(rows[0]).toEqual({
      'x-ratelimit-limit': '2',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
      'ratelimit-policy': '"burst";q=2;w=1, "minute";q=5;w=60',
      ratelimit: '"burst";r=0;t=1, "minute";r=3;t=60',
    });
    // Denied by burst: its t is the wait, minute's its time to full; Retry-After the longest wait.
    expect(rows[1]).toMatchObject({ ratelimit: '"burst";r=0;t=1, "minute";r=3;t=60', 'retry-after': '1' });
  });

  it('takes the default key from what the runtime passed (Bun, Deno, @hono/node-server), IPv6 by its /64', async () => {
    const clock = new ManualClock(0);
    const options: FetchRateLimitOptions = {
      limiter: createLimiter('token-bucket', { limit: 1, windowMs: 60_000 }, { clock }),
    };
    const keyOf = async (args: unknown[]) => (await decide(request(), options, { args })).result.key;
    expect(await keyOf([bunServer('::ffff:198.51.100.4')])).toBe('198.51.100.4');
    expect(await keyOf([denoInfo('2001:db8:1:2:aaaa::1')])).toBe('2001:db8:1:2::/64');
    expect(await keyOf([{ incoming: { socket: { remoteAddress: '2001:db8:1:2:bbbb::9' } } }])).toBe(
      '2001:db8:1:2::/64',
    );
    // A Worker passes env and ctx: no address, so every such request shares one key (noKey: 'share').
    expect(await keyOf([{ MY_VAR: 'x' }, {}])).toBe(undefined);
    expect((await decide(request(), options, { args: [{}] })).result.outcome).toBe('denied');
  });

  it('rejects a bad option naming it, when the options object is first used', async () => {
    await expect(
      decide(request(), { limiter: createLimiter('gcra', { limit: 1, windowMs: 1000 }), cost: -1 }),
    ).rejects.toMatchObject({
      code: 'INVALID_COST',
      field: 'cost',
    });
  });
});

describe('key helpers: only what you configure is trusted', () => {
  it.each([
    ['a header holding an IPv4 address', headerKey('x-real-ip'), { 'x-real-ip': ' 192.0.2.1 ' }, '192.0.2.1'],
    ['a header holding IPv6: its /64', headerKey('x-real-ip'), { 'x-real-ip': '2001:db8::7' }, '2001:db8::/64'],
    [
      'ipv6Subnet 48',
      headerKey('x-real-ip', { ipv6Subnet: 48 }),
      { 'x-real-ip': '2001:db8:1:2::7' },
      '2001:db8:1::/48',
    ],
    ['a header holding an API key: the value as it is', headerKey('x-api-key'), { 'x-api-key': 'k-123' }, 'k-123'],
    ['an absent header: no key', headerKey('x-api-key'), {}, undefined],
    ['CF-Connecting-IP', cfConnectingIp(), { 'cf-connecting-ip': '2001:db8:5:6::1' }, '2001:db8:5:6::/64'],
    ['CF-Connecting-IP that is no address: no key', cfConnectingIp(), { 'cf-connecting-ip': 'evil' }, undefined],
  ])('%s', (_what, key, headers, expected) => {
    expect(key(request(headers))).toBe(expected);
    expect(key({ req: { raw: request(headers) } })).toBe(expected);
  });

  it('never reads X-Forwarded-For by itself: trustProxy is refused, naming the option', () => {
    expectRatelabError(
      () =>
        rateLimitFetch(ok, {
          limiter: createLimiter('gcra', { limit: 1, windowMs: 1000 }),
          trustProxy: 1,
        } as FetchRateLimitOptions),
      'INVALID_ARGUMENT',
      'trustProxy',
    );
    expect(runtimeAddress(request({ 'x-forwarded-for': '192.0.2.9' }), [])).toBe(undefined);
  });

  it('refuses a header name that is not one', () => {
    expectRatelabError(() => headerKey('x real ip'), 'INVALID_ARGUMENT', 'name');
  });
});

describe('cost, shadow mode and onDecision, as ratelab/http has them', () => {
  it('charges a cost per request; one above the capacity is refused for good, without Retry-After', async () => {
    const clock = new ManualClock(0);
    const limited = rateLimitFetch(ok, {
      limiter: createLimiter('token-bucket', { limit: 4, windowMs: 1000 }, { clock }),
      key: () => 'k',
      cost: (req) => Number(req.headers.get('x-cost') ?? 1),
    });
    const rows = [];
    for (const cost of ['3', '2', '5']) {
      const response = await limited(request({ 'x-cost': cost }));
      rows.push([
        response.status,
        response.headers.get('retry-after'),
        response.status === 429 ? ((await response.json()) as { error: string }).error : 'ok',
      ]);
    }
    expect(rows).toEqual([
      [200, null, 'ok'],
      [429, '1', 'too_many_requests'],
      [429, null, 'cost_exceeds_limit'],
    ]);
  });

  it('in shadow lets every request through, reports shadow-denied, and sends the fields as enforced without Retry-After', async () => {
    const clock = new ManualClock(0);
    const seen: RateLimitResult[] = [];
    const limited = rateLimitFetch(ok, {
      limiter: createLimiter('fixed-window', { limit: 1, windowMs: 1000 }, { clock }),
      key: () => 'k',
      shadow: true,
      shadowHeaders: 'as-enforced',
      onDecision: (result) => seen.push(result),
    });
    const responses = [await limited(request()), await limited(request())];
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    expect(seen.map((r) => [r.outcome, r.overridden])).toEqual([
      ['allowed', false],
      ['shadow-denied', true],
    ]);
    expect(fields(responses[1]!)).toEqual({
      'x-ratelimit-limit': '1',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '1',
    });
  });
});

describe('failures: the limiter fails by the fail mode, the handler keeps its error', () => {
  const down = () => {
    throw new Error('store down');
  };
  it.each<[FailMode, number, string]>([
    ['open', 200, 'failed-open'],
    ['closed', 503, 'failed-closed'],
    ['local', 503, 'failed-closed'],
  ])('failMode %s: %s', async (failMode, status, outcome) => {
    const onError = vi.fn();
    const seen: string[] = [];
    const limited = rateLimitFetch(ok, {
      limiter: { consume: down },
      failMode,
      onError,
      onDecision: (r) => seen.push(r.outcome),
    });
    const response = await limited(request());
    expect([response.status, seen, fields(response)]).toEqual([status, [outcome], {}]);
    expect(onError).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'store down' }),
      expect.any(Request),
      expect.anything(),
    );
  });

  it('a handler that throws keeps its error: it is neither a 429 nor a limiter failure', async () => {
    const onError = vi.fn();
    const boom = new Error('handler bug');
    const limited = rateLimitFetch(() => Promise.reject(boom), {
      limiter: createLimiter('gcra', { limit: 5, windowMs: 1000 }),
      failMode: 'closed',
      onError,
    });
    await expect(limited(request())).rejects.toBe(boom);
    // A handler that throws at once (the limiter answering at once too): the throw itself reaches the runtime.
    const sync = rateLimitFetch(
      () => {
        throw boom;
      },
      { limiter: createLimiter('gcra', { limit: 5, windowMs: 1000 }), onError },
    );
    expect(() => sync(request())).toThrow(boom);
    expect(onError).not.toHaveBeenCalled();
  });

  it('an onLimited that throws is a limiter failure; one that answers gets the fields added', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('fixed-window', { limit: 1, windowMs: 1000 }, { clock });
    const custom = rateLimitFetch(ok, {
      limiter,
      key: () => 'a',
      onLimited: () => new Response('slow down', { status: 429 }),
    });
    await custom(request());
    const answered = await custom(request());
    expect([answered.status, await answered.text(), answered.headers.get('retry-after')]).toEqual([
      429,
      'slow down',
      '1',
    ]);
    const onError = vi.fn();
    const broken = rateLimitFetch(ok, {
      limiter,
      key: () => 'b',
      failMode: 'open',
      onError,
      onLimited: () => {
        throw new Error('template missing');
      },
    });
    await broken(request());
    const failedOpen = await broken(request());
    expect([failedOpen.status, fields(failedOpen)]).toEqual([200, {}]);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('adds the fields to a response whose headers are immutable by copying it', async () => {
    const limited = rateLimitFetch(() => Response.redirect('http://ratelab.test/elsewhere', 302), {
      limiter: createLimiter('gcra', { limit: 5, windowMs: 1000 }),
    });
    const response = await limited(request());
    expect([response.status, response.headers.get('location'), response.headers.get('x-ratelimit-remaining')]).toEqual([
      302,
      'http://ratelab.test/elsewhere',
      '4',
    ]);
  });
});

/** A Hono-like context: the request, the env (here Bun's server) and a response `next()` sets. */
function honoContext(address: string): HonoContextLike & { header: Record<string, string> } {
  return { req: { raw: request() }, env: bunServer(address), res: new Response(null, { status: 404 }), header: {} };
}

describe('rateLimitHono: a (c, next) middleware, no Hono import', () => {
  it('answers 429 without calling next; otherwise calls next and puts the fields on c.res', async () => {
    const clock = new ManualClock(0);
    const middleware = rateLimitHono({
      limiter: createLimiter('sliding-counter', { limit: 2, windowMs: 1000 }, { clock }),
    });
    const rows = [];
    for (let i = 0; i < 3; i++) {
      const c = honoContext('192.0.2.50');
      const next = vi.fn(async () => {
        c.res = new Response('ok', { status: 200 });
      });
      const returned = await middleware(c, next);
      const response = returned ?? c.res;
      rows.push([next.mock.calls.length, response.status, response.headers.get('x-ratelimit-remaining')]);
    }
    expect(rows).toEqual([
      [1, 200, '1'],
      [1, 200, '0'],
      [0, 429, '0'],
    ]);
  });

  it('gives key and cost the context', async () => {
    const key = vi.fn((c: HonoContextLike) => c.req.raw.headers.get('x-api-key') ?? undefined);
    const middleware = rateLimitHono({
      limiter: createLimiter('gcra', { limit: 5, windowMs: 1000 }),
      key,
      cost: () => 2,
    });
    const c = honoContext('192.0.2.1');
    await middleware(c, async () => {});
    expect(key).toHaveBeenCalledWith(c);
    expect(c.res.headers.get('x-ratelimit-remaining')).toBe('3');
  });
});

describe('bad options are refused when the middleware is made, naming the option', () => {
  const limiter = () => createLimiter('gcra', { limit: 5, windowMs: 1000 }, { clock: new ManualClock(0) });
  const makers = [
    ['rateLimitFetch', (options: FetchRateLimitOptions) => rateLimitFetch(ok, options)],
    ['rateLimitHono', (options: FetchRateLimitOptions) => rateLimitHono(options as never)],
  ] as const;
  describe.each(makers)('%s', (_name, make) => {
    it.each<[string, Record<string, unknown>, string, string | undefined]>([
      ['a negative cost', { cost: -1 }, 'INVALID_COST', 'cost'],
      ['a misspelt failMode', { failMode: 'opne' }, 'INVALID_ARGUMENT', 'failMode'],
      ['an unknown noKey', { noKey: 'bogus' }, 'INVALID_ARGUMENT', 'noKey'],
      ['an unknown shadowHeaders', { shadowHeaders: 'all' }, 'INVALID_ARGUMENT', 'shadowHeaders'],
      ['a shadow that is not a boolean', { shadow: 'yes' }, 'INVALID_ARGUMENT', 'shadow'],
      ['an ipv6Subnet out of range', { ipv6Subnet: 200 }, 'INVALID_ARGUMENT', 'ipv6Subnet'],
      ['a key that is not a function', { key: 'x-api-key' }, 'INVALID_ARGUMENT', 'key'],
      ['an onLimited that is not a function', { onLimited: true }, 'INVALID_ARGUMENT', 'onLimited'],
      ['an onDecision that is not a function', { onDecision: 1 }, 'INVALID_ARGUMENT', 'onDecision'],
      ['a limiter without consume', { limiter: {} }, 'INVALID_ARGUMENT', 'limiter'],
      [
        'a policy name that cannot be a header',
        { headers: { ietf: { policyName: 'grüne' } } },
        'INVALID_ARGUMENT',
        undefined /* the message says 'policy name' */,
      ],
    ])('%s', (_what, bad, code, field) => {
      expectRatelabError(
        () => make({ limiter: limiter(), ...bad } as FetchRateLimitOptions),
        code as RatelabError['code'],
        field,
      );
    });
  });

  it('rateLimitFetch refuses a handler that is not a function', () => {
    expectRatelabError(
      () => rateLimitFetch('index.html' as never, { limiter: limiter() }),
      'INVALID_ARGUMENT',
      'handler',
    );
  });
});
