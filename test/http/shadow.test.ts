import type { IncomingMessage, ServerResponse } from 'node:http';
import Fastify from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ManualClock, createLimiter, type Decision } from '../../src/index.js';
import { rateLimitHook } from '../../src/http/fastify.js';
import {
  rateLimit,
  rateLimitResult,
  type LimiterLike,
  type RateLimitOptions,
  type RateLimitResult,
} from '../../src/http/middleware.js';
import { expectRatelabError } from '../support/errors.js';
import { getMany, listen, type Reply } from './support.js';

const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A node:http server behind the middleware; the handler counts the requests it ran and records each result. */
async function serve(
  options: RateLimitOptions,
): Promise<{ url: string; handled: () => number; results: RateLimitResult[] }> {
  const limit = rateLimit(options);
  let handled = 0;
  const results: RateLimitResult[] = [];
  const server = await listen((req: IncomingMessage, res: ServerResponse) => {
    void limit(req, res, () => {
      handled += 1;
      res.end('ok');
    }).then(() => {
      const result = rateLimitResult(req);
      if (result) results.push(result);
    });
  });
  servers.push(server);
  return { url: server.url, handled: () => handled, results };
}

const RATE_LIMIT_FIELDS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'ratelimit-policy',
  'ratelimit',
  'retry-after',
];

/** The rate-limit fields of a reply, by name (absent ones left out). */
function fieldsOf(reply: Reply): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const name of RATE_LIMIT_FIELDS) {
    const value = reply.headers[name];
    if (typeof value === 'string') fields[name] = value;
  }
  return fields;
}

const POLICY = { limit: 3, windowMs: 2000 };
const HEADERS = { ietf: { policyName: 'trial' } };

describe('rateLimit({ shadow: true }) over an enforcing limiter', () => {
  it('lets every request through, reports the denials shadow-denied (overridden) and never calls onLimited', async () => {
    const clock = new ManualClock(0);
    const onLimited = vi.fn();
    const decided: string[] = [];
    const { url, handled, results } = await serve({
      limiter: createLimiter('fixed-window', POLICY, { clock }),
      shadow: true,
      onLimited,
      onDecision: (result) => decided.push(result.outcome),
    });
    const replies = await getMany(url, 5);
    // why: the limit is 3 per window; an enforcing middleware answers the 4th and 5th with 429.
    expect(replies.map((r) => [r.status, r.body])).toEqual(Array.from({ length: 5 }, () => [200, 'ok']));
    expect(handled()).toBe(5);
    expect(onLimited).not.toHaveBeenCalled();
    expect(results.map((r) => [r.outcome, r.overridden, r.decision?.allowed])).toEqual([
      ['allowed', false, true],
      ['allowed', false, true],
      ['allowed', false, true],
      ['shadow-denied', true, false],
      ['shadow-denied', true, false],
    ]);
    expect(decided).toEqual(results.map((r) => r.outcome));
    // why: shadowHeaders defaults to 'none': the trial is invisible to clients.
    expect(replies.map(fieldsOf)).toEqual(Array.from({ length: 5 }, () => ({})));
  });

  it("with shadowHeaders 'as-enforced' sends the fields an enforcing middleware sends on the same traffic, without Retry-After", async () => {
    const enforcingClock = new ManualClock(0);
    const shadowClock = new ManualClock(0);
    const enforcing = await serve({
      limiter: createLimiter('fixed-window', POLICY, { clock: enforcingClock }),
      headers: HEADERS,
    });
    const shadow = await serve({
      limiter: createLimiter('fixed-window', POLICY, { clock: shadowClock }),
      headers: HEADERS,
      shadow: true,
      shadowHeaders: 'as-enforced',
    });
    const expected = await getMany(enforcing.url, 5);
    const got = await getMany(shadow.url, 5);
    expect(expected.map((r) => r.status)).toEqual([200, 200, 200, 429, 429]);
    expect(got.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    const withoutRetryAfter = expected.map((reply) => {
      const { 'retry-after': _, ...rest } = fieldsOf(reply);
      return rest;
    });
    expect(got.map(fieldsOf)).toEqual(withoutRetryAfter);
    // why: a shadow denial says what the 429 would have: nothing remaining, the wait in RateLimit's t.
    expect(fieldsOf(got[3]!)).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '2',
      'ratelimit-policy': '"trial";q=3;w=2',
      ratelimit: '"trial";r=0;t=2',
    });
    expect(expected[3]!.headers['retry-after']).toBe('2');
  });

  it('lets a request through when the limiter fails, even under failMode closed (failed-open, onError told)', async () => {
    const onError = vi.fn();
    const consume = (): Decision => {
      throw new Error('store down');
    };
    const { url, handled, results } = await serve({ limiter: { consume }, failMode: 'closed', shadow: true, onError });
    const replies = await getMany(url, 2);
    expect(replies.map((r) => r.status)).toEqual([200, 200]);
    expect(handled()).toBe(2);
    expect(results.map((r) => r.outcome)).toEqual(['failed-open', 'failed-open']);
    expect(onError).toHaveBeenCalledTimes(2);
  });

  it("lets a keyless request through under noKey 'reject', reported no-key (the limiter not asked)", async () => {
    const consume = vi.fn(() => createLimiter('gcra', { limit: 1, windowMs: 1000 }).consume('k'));
    const { url, handled, results } = await serve({
      limiter: { consume },
      key: () => undefined,
      noKey: 'reject',
      shadow: true,
    });
    const replies = await getMany(url, 1);
    expect(replies.map((r) => r.status)).toEqual([200]);
    expect(handled()).toBe(1);
    expect(results.map((r) => r.outcome)).toEqual(['no-key']);
    expect(consume).not.toHaveBeenCalled();
  });

  it('runs the Fastify handler on a shadow denial (the reply is not hijacked)', async () => {
    const app = Fastify();
    servers.push({ close: () => app.close() });
    let handled = 0;
    const clock = new ManualClock(0);
    app.addHook(
      'onRequest',
      rateLimitHook({ limiter: createLimiter('sliding-log', { limit: 1, windowMs: 1000 }, { clock }), shadow: true }),
    );
    app.get('/', async () => {
      handled += 1;
      return 'ok';
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    const replies = await getMany(url, 3);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(handled).toBe(3);
  });
});

describe('a limiter in shadow under an enforcing middleware', () => {
  /** A limiter in shadow mode: it shows `enforce: false`, which the middleware reads. */
  function shadowLimiter(): LimiterLike {
    const limiter = createLimiter('fixed-window', POLICY, { clock: new ManualClock(0), enforce: false });
    expect(limiter.enforce).toBe(false);
    return limiter;
  }

  it('passes its shadow denials, reported shadow-denied and not overridden; no fields by default', async () => {
    const onLimited = vi.fn();
    const { url, handled, results } = await serve({ limiter: shadowLimiter(), onLimited, headers: HEADERS });
    const replies = await getMany(url, 4);
    expect(replies.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(handled()).toBe(4);
    expect(onLimited).not.toHaveBeenCalled();
    expect(results.map((r) => [r.outcome, r.overridden])).toEqual([
      ['allowed', false],
      ['allowed', false],
      ['allowed', false],
      ['shadow-denied', false],
    ]);
    // why: the limiter is in shadow, so every answer of it, admissions too, is decided in shadow.
    expect(replies.map(fieldsOf)).toEqual([{}, {}, {}, {}]);
  });

  it("with shadowHeaders 'as-enforced' sends a shadow denial's fields as a denial's, without Retry-After", async () => {
    const { url } = await serve({ limiter: shadowLimiter(), headers: HEADERS, shadowHeaders: 'as-enforced' });
    const replies = await getMany(url, 4);
    expect(fieldsOf(replies[2]!)).toMatchObject({ 'x-ratelimit-remaining': '0', ratelimit: '"trial";r=0;t=2' });
    expect(fieldsOf(replies[3]!)).toEqual({
      'x-ratelimit-limit': '3',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '2',
      'ratelimit-policy': '"trial";q=3;w=2',
      ratelimit: '"trial";r=0;t=2',
    });
  });
});

describe('onDecision', () => {
  it('gets every result once, after the middleware is done with it; one that throws changes nothing and onError is told', async () => {
    const clock = new ManualClock(0);
    const onError = vi.fn();
    const seen: [string, boolean][] = [];
    const { url, handled } = await serve({
      limiter: createLimiter('gcra', { limit: 1, windowMs: 1000 }, { clock }),
      onError,
      onDecision: (result) => {
        seen.push([result.outcome, result.overridden]);
        throw new Error('listener bug');
      },
    });
    const replies = await getMany(url, 2);
    expect(replies.map((r) => r.status)).toEqual([200, 429]);
    expect(handled()).toBe(1);
    expect(seen).toEqual([
      ['allowed', false],
      ['denied', false],
    ]);
    expect(onError).toHaveBeenCalledTimes(2);
    expect((onError.mock.calls[0]![0] as Error).message).toBe('listener bug');
  });
});

describe('rateLimit refuses bad shadow options when it is made', () => {
  const limiter = createLimiter('gcra', { limit: 1, windowMs: 1000 });
  it.each<[string, Partial<Record<string, unknown>>, string]>([
    ['an unknown shadowHeaders', { shadowHeaders: 'all' }, 'shadowHeaders'],
    ['a shadow that is a string', { shadow: 'yes' }, 'shadow'],
    ['an onDecision that is not a function', { onDecision: 'log' }, 'onDecision'],
  ])('%s', (_, bad, field) => {
    expectRatelabError(() => rateLimit({ limiter, ...bad } as RateLimitOptions), 'INVALID_ARGUMENT', field);
  });
});
