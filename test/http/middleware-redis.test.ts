import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, it } from 'vitest';
import { connectRedis, type RedisConnection } from '../../src/redis/client.js';
import { createRedisLimiter, type FailMode } from '../../src/redis/redis-limiter.js';
import type { RedisClient } from '../../src/redis/run-script.js';
import { rateLimit, rateLimitResult, type RateLimitResult } from '../../src/http/middleware.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';
import { startRedisServer } from '../support/redis-server.js';
import { get, getMany, listen } from './support.js';

/** The middleware's async path on a real redis-server: decisions, and each fail mode while Redis is down. */
describeRedis('rateLimit with a Redis limiter', () => {
  const fixture = useRedisServer();

  /** A bounded client of a server that has gone away: every command fails at once. */
  async function deadClient(): Promise<RedisConnection> {
    const gone = await startRedisServer();
    const client = await connectRedis(gone.url);
    await gone.stop();
    return client;
  }

  async function serve(failMode: FailMode, prefix: string, client: RedisClient = fixture.redis) {
    const limiter = createRedisLimiter(
      'sliding-log',
      { limit: 2, windowMs: 60_000 },
      { redis: client, failMode, prefix, timeoutMs: 200, ...(failMode === 'local' ? { expectedNodes: 1 } : {}) },
    );
    const limit = rateLimit({ limiter, headers: { ietf: { policyName: 'api' } } });
    const seen: (RateLimitResult | undefined)[] = [];
    const handler = (req: IncomingMessage, res: ServerResponse) =>
      void limit(req, res, () => res.end('ok')).then(() => seen.push(rateLimitResult(req)));
    return { http: await listen(handler), seen };
  }

  it.each([
    ['closed', 503, 'failed-closed'],
    ['open', 200, 'failed-open'],
  ] as const)(
    'a key whose Redis state is unusable (WRONGTYPE), fail %s: %i, and onError is told REDIS_KEY_ERROR naming the key',
    async (failMode, status, outcome) => {
      const limiter = createRedisLimiter(
        'sliding-log',
        { limit: 2, windowMs: 60_000 },
        { redis: fixture.redis, failMode, prefix: `mw-poison-${failMode}-${Date.now()}:`, timeoutMs: 500 },
      );
      await fixture.redis.set(limiter.redisKey('victim'), 'not a sorted set');
      const errors: unknown[] = [];
      const limit = rateLimit({ limiter, key: () => 'victim', onError: (error) => errors.push(error) });
      const seen: (RateLimitResult | undefined)[] = [];
      const http = await listen(
        (req, res) => void limit(req, res, () => res.end('ok')).then(() => seen.push(rateLimitResult(req))),
      );
      try {
        const [reply] = await getMany(http.url, 1);
        expect(reply?.status).toBe(status);
        expect(seen[0]?.outcome).toBe(outcome);
        expect(errors).toHaveLength(1);
        expect(errors[0]).toMatchObject({ code: 'REDIS_KEY_ERROR' });
        expect(String((errors[0] as Error).message)).toMatch(/"victim".*WRONGTYPE/);
      } finally {
        await http.close();
      }
    },
  );

  it('decides in Redis: headers from each decision, 429 with Retry-After in whole seconds', async () => {
    const { http, seen } = await serve('closed', `mw-ok-${Date.now()}:`);
    try {
      const replies = await getMany(http.url, 3);
      expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
      expect(replies.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['1', '0', '0']);
      expect(replies[0]!.headers['ratelimit-policy']).toBe('"api";q=2;w=60');
      const retryAfter = Number(replies[2]!.headers['retry-after']);
      // The first request's entry leaves the 60 s log within 60 s: never a fraction, never 0.
      expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
      expect(replies[2]!.headers.ratelimit).toBe(`"api";r=0;t=${retryAfter}`);
      expect(seen.map((s) => s?.outcome)).toEqual(['allowed', 'allowed', 'denied']);
      expect((seen[0]?.decision as { reason?: string }).reason).toBe('redis');
    } finally {
      await http.close();
    }
  });

  it.each<[FailMode, number, string | undefined, string]>([
    ['open', 200, undefined, 'failed-open'],
    ['closed', 503, '1', 'failed-closed'],
  ])(
    'while Redis is unreachable, fail %s: status %i, Retry-After %s, no quota fields',
    async (failMode, status, retryAfter, outcome) => {
      const client = await deadClient();
      const { http, seen } = await serve(failMode, `mw-${failMode}:`, client);
      try {
        const reply = await get(http.url);
        expect([
          reply.status,
          reply.headers['retry-after'],
          reply.headers['x-ratelimit-limit'],
          reply.headers.ratelimit,
        ]).toEqual([status, retryAfter, undefined, undefined]);
        if (status === 503) expect(JSON.parse(reply.body).error).toBe('rate_limiter_unavailable');
        expect(seen[0]?.outcome).toBe(outcome);
      } finally {
        client.disconnect();
        await http.close();
      }
    },
  );

  it('while Redis is unreachable, fail local: decided in memory, with headers', async () => {
    const client = await deadClient();
    const { http } = await serve('local', 'mw-local:', client);
    try {
      const replies = await getMany(http.url, 3);
      expect(replies.map((r) => [r.status, r.headers['x-ratelimit-remaining']])).toEqual([
        [200, '1'],
        [200, '0'],
        [429, '0'],
      ]);
    } finally {
      client.disconnect();
      await http.close();
    }
  });
});
