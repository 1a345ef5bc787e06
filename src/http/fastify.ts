import type { IncomingMessage, ServerResponse } from 'node:http';
import { rateLimit, type RateLimitOptions } from './middleware.js';

/** The part of Fastify's request the hook uses, its `raw` node:http request (no dependency on Fastify itself). */
export interface FastifyRequestLike {
  raw: IncomingMessage;
}
/** The parts of Fastify's reply the hook uses: its `raw` node:http response, and `hijack()` once the middleware answered a denial. */
export interface FastifyReplyLike {
  raw: ServerResponse;
  hijack(): unknown;
}

/**
 * {@link rateLimit} as a Fastify `onRequest` hook: `app.addHook('onRequest',
 * rateLimitHook({ limiter }))`. It works on the raw request and response; an admitted
 * request goes on with the rate-limit fields already set (Fastify keeps them when it
 * replies), a denied one is answered by the middleware and the reply is hijacked, so
 * Fastify runs neither the remaining hooks nor the handler. `key(req)` gets the raw request.
 */
export function rateLimitHook(
  options: RateLimitOptions,
): (request: FastifyRequestLike, reply: FastifyReplyLike) => Promise<void> {
  const limit = rateLimit(options);
  return async (request, reply) => {
    let admitted = false;
    await limit(request.raw, reply.raw, () => {
      admitted = true;
    });
    if (!admitted) reply.hijack();
  };
}
