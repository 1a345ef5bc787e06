import Fastify from 'fastify';
import { afterEach, expect, it } from 'vitest';
import { ManualClock, createLimiter } from '../../src/index.js';
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
  app.addHook('onRequest', rateLimitHook({ limiter: createLimiter('sliding-log', { limit: 2, windowMs: 1000 }, { clock }), headers: { ietf: { policyName: 'free' } } }));
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
