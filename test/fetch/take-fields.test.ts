// takeRateLimitFields: a handler behind rateLimitFetch writing the rate-limit fields into
// its own Response, which the middleware then leaves untouched (never reading its
// `headers`: on @hono/node-server that read builds undici Headers, docs/http.md "Speed").
// Every case on a ManualClock with Node's own Request and Response.
import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter } from '../../src/index.js';
import { rateLimitFetch, takeRateLimitFields, type FetchRateLimitOptions } from '../../src/fetch/index.js';
import { expectRatelabError } from '../support/errors.js';

const request = () => new Request('http://ratelab.test/');
const options = (limit: number, extra: Partial<FetchRateLimitOptions> = {}): FetchRateLimitOptions => ({
  limiter: createLimiter('fixed-window', { limit, windowMs: 60_000 }, { clock: new ManualClock(0) }),
  key: () => 'k',
  ...extra,
});

const headersGetter = Object.getOwnPropertyDescriptor(Response.prototype, 'headers')?.get as (
  this: Response,
) => Headers;

/** `response`, counting how often its `headers` are read (the middleware's read would be one). */
function watched(response: Response): { response: Response; reads: () => number } {
  let reads = 0;
  Object.defineProperty(response, 'headers', {
    get() {
      reads += 1;
      return headersGetter.call(response);
    },
  });
  return { response, reads: () => reads };
}

/** The rate-limit fields of a response, and its content type. */
function fields(response: Response): Record<string, string> {
  const seen: Record<string, string> = {};
  for (const [name, value] of headersGetter.call(response))
    if (/ratelimit|retry-after|content-type/.test(name)) seen[name] = value;
  return seen;
}

describe('takeRateLimitFields: the handler writes the fields, the middleware leaves its Response alone', () => {
  const cases = [
    {
      name: 'a sync handler taking them before it builds the Response',
      handler: (req: Request) =>
        new Response('ok', { headers: takeRateLimitFields(req, { 'content-type': 'text/plain' }) }),
    },
    {
      name: 'an async handler taking them after an await',
      handler: async (req: Request) => {
        await Promise.resolve();
        return new Response('ok', { headers: takeRateLimitFields(req, { 'content-type': 'text/plain' }) });
      },
    },
  ];
  it.each(cases)('$name: the fields as decided, the Response never read by the middleware', async ({ handler }) => {
    let seen: { response: Response; reads: () => number } | undefined;
    const limited = rateLimitFetch(
      async (req: Request) => {
        seen = watched(await handler(req));
        return seen.response;
      },
      options(3, { headers: { ietf: { policyName: 'api' } } }),
    );
    const response = await limited(request());
    expect(response).toBe(seen?.response);
    expect(seen?.reads(), 'the middleware did not read the handler’s headers').toBe(0);
    expect(fields(response)).toEqual({
      'content-type': 'text/plain',
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '2',
      'x-ratelimit-reset': '60',
      'ratelimit-policy': '"api";q=3;w=60',
      ratelimit: '"api";r=2;t=60',
    });
  });

  it('the handler’s own headers win over a field of the same name in any letter case; a spread works too', async () => {
    const own = rateLimitFetch(
      (req) => new Response('ok', { headers: takeRateLimitFields(req, { 'x-ratelimit-limit': 'mine' }) }),
      options(3),
    );
    const response = await own(request());
    expect(fields(response)).toMatchObject({ 'x-ratelimit-limit': 'mine', 'x-ratelimit-remaining': '2' });
    expect(headersGetter.call(response).get('x-ratelimit-limit'), 'one value, not "3, mine"').toBe('mine');
    const spread = rateLimitFetch(
      (req) => new Response('ok', { headers: { ...takeRateLimitFields(req), 'X-RateLimit-Limit': 'mine' } }),
      options(3),
    );
    expect(fields(await spread(request()))).toMatchObject({
      'x-ratelimit-limit': 'mine',
      'x-ratelimit-remaining': '2',
    });
  });

  it('refuses headers that are not an object of strings, naming headers', () => {
    for (const bad of [new Headers(), [['a', 'b']], 'a: b', { a: 1 }]) {
      const error = expectRatelabError(
        () => takeRateLimitFields(request(), bad as unknown as Record<string, string>),
        'INVALID_ARGUMENT',
        'headers',
      );
      expect(error.message).toMatch(/^headers: [^\n]+$/);
    }
  });

  it('a handler that does not take them gets them set on its Response, as before', async () => {
    let seen: { response: Response; reads: () => number } | undefined;
    const limited = rateLimitFetch(() => {
      seen = watched(new Response('ok'));
      return seen.response;
    }, options(3));
    const response = await limited(request());
    expect(seen?.reads()).toBeGreaterThan(0);
    expect(fields(response)).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2' });
  });

  it('answers {} for another request or outside a handler, and the middleware then sets the fields itself', async () => {
    const outside = request();
    expect(takeRateLimitFields(outside), 'no middleware decided it').toEqual({});
    expect(takeRateLimitFields(outside, { 'content-type': 'text/plain' }), 'the handler’s own alone').toEqual({
      'content-type': 'text/plain',
    });
    let other: Record<string, string> | undefined;
    const limited = rateLimitFetch((req) => {
      other = takeRateLimitFields(new Request(req)); // a copy: not the request decided
      return new Response('ok');
    }, options(3));
    const decided = request();
    const response = await limited(decided);
    expect(other).toEqual({});
    expect(fields(response)).toMatchObject({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '2' });
    expect(takeRateLimitFields(decided), 'after the handler returned').toEqual({});
  });

  it('answers {} when the decision has no fields (shadow mode, shadowHeaders none): nothing is added', async () => {
    let taken: Record<string, string> | undefined;
    const limited = rateLimitFetch(
      (req) => {
        taken = takeRateLimitFields(req);
        return new Response('ok');
      },
      options(1, { shadow: true }),
    );
    await limited(request());
    const response = await limited(request());
    expect(taken).toEqual({});
    expect(fields(response)).toEqual({ 'content-type': 'text/plain;charset=UTF-8' });
  });

  it.each([
    { name: 'sync', delay: false },
    { name: 'async', delay: true },
  ])(
    'nested limited handlers ($name): the handler takes the innermost’s fields, the outer adds only what is missing',
    async ({ delay }) => {
      const handler = async (req: Request) => {
        if (delay) await Promise.resolve();
        return new Response('ok', { headers: takeRateLimitFields(req) });
      };
      const inner = rateLimitFetch(
        delay ? handler : (req: Request) => new Response('ok', { headers: takeRateLimitFields(req) }),
        options(5),
      );
      const outer = rateLimitFetch(inner, options(10, { headers: { ietf: { policyName: 'outer' } } }));
      expect(fields(await outer(request()))).toEqual({
        'content-type': 'text/plain;charset=UTF-8',
        'x-ratelimit-limit': '5',
        'x-ratelimit-remaining': '4',
        'x-ratelimit-reset': '60',
        'ratelimit-policy': '"outer";q=10;w=60',
        ratelimit: '"outer";r=9;t=60',
      });
    },
  );

  it('a handler that throws after taking them keeps its error', async () => {
    const limited = rateLimitFetch((req) => {
      takeRateLimitFields(req);
      throw new Error('handler bug');
    }, options(3));
    expect(() => limited(request())).toThrow('handler bug');
    const rejecting = rateLimitFetch(async (req) => {
      await Promise.resolve();
      takeRateLimitFields(req);
      throw new Error('async handler bug');
    }, options(3));
    await expect(rejecting(request())).rejects.toThrow('async handler bug');
  });
});
