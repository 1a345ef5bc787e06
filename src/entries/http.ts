// PROTOTYPE (issue 10 prep): the `ratelab/http` entry: middleware for node:http/Express and
// Fastify, the rate-limit headers, and the client address behind trusted proxies.
export { SHARED_NO_KEY, rateLimit, rateLimitResult } from '../http/middleware.js';
export type { FailMode as MiddlewareFailMode, LimitedInfo, LimiterLike, Next, RateLimitOptions, RateLimitResult } from '../http/middleware.js';
export { rateLimitHook } from '../http/fastify.js';
export type { FastifyReplyLike, FastifyRequestLike } from '../http/fastify.js';
export { rateLimitHeaders, retryAfterSeconds } from '../http/headers.js';
export type { HeaderField, HeaderOptions, PolicyInfo } from '../http/headers.js';
export { clientAddress, proxyTrust } from '../http/client-address.js';
export type { ProxyTrust, TrustProxy } from '../http/client-address.js';
