import Fastify from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { ManualClock, createLimiter, type Decision, type RatelabError } from '../../src/index.js';
import { rateLimitHook } from '../../src/http/fastify.js';
import { getMany } from './support.js';

let app: ReturnType<typeof Fastify> | undefined;
afterEach(async () => {
  await app?.close();
});

it('rateLimitHook on Fastify: headers kept on admitted replies, 429 answered without running the handler', async () => {
  app = Fastify();
  let handled = 0;
  const clock = new ManualClock(0);
  app.addHook(
    'onRequest',
    rateLimitHook({
      limiter: createLimiter('sliding-log', { limit: 2, windowMs: 1000 }, { clock }),
      headers: { ietf: { policyName: 'free' } },
    }),
  );
  app.get('/', async () => {
    handled += 1;
    return { hello: 'world' };
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const replies = await getMany(url, 3);
  expect(replies.map((r) => r.status)).toEqual([200, 200, 429]);
  expect(replies.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['1', '0', '0']);
  expect(replies[0]!.headers.ratelimit).toBe('"free";r=1;t=1');
  expect(JSON.parse(replies[0]!.body)).toEqual({ hello: 'world' });
  expect(replies[2]!.headers['retry-after']).toBe('1');
  expect(JSON.parse(replies[2]!.body).error).toBe('too_many_requests');
  expect(handled).toBe(2);
});

it('rateLimitHook: a consume answering no Decision is a limiter failure (503 when closed), the handler is not run and the app lives on', async () => {
  app = Fastify();
  let handled = 0;
  const errors: string[] = [];
  const consume = () => undefined as unknown as Decision;
  app.addHook(
    'onRequest',
    rateLimitHook({
      limiter: { consume },
      failMode: 'closed',
      onError: (error) => errors.push((error as RatelabError).code),
    }),
  );
  app.get('/', async () => {
    handled += 1;
    return 'ok';
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const replies = await getMany(url, 2);
  expect(replies.map((r) => r.status)).toEqual([503, 503]);
  expect(JSON.parse(replies[0]!.body).error).toBe('rate_limiter_unavailable');
  expect(errors).toEqual(['INVALID_DECISION', 'INVALID_DECISION']);
  expect(handled).toBe(0);
});
