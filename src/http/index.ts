// `ratelab/http`: rate limiting for node:http, Express and Fastify, the rate-limit
// headers, and the client's address behind trusted proxies. No third-party module.

/** Middleware for node:http and Express: `(req, res, next?) => Promise<void>`; 429 with Retry-After when denied. */
export { rateLimit } from './middleware.js';
/** The decision the middleware made for a request (undefined before it ran). */
export { rateLimitResult } from './middleware.js';
/** The key under which requests without a usable key share one quota (`noKey: 'share'`, the default). */
export { SHARED_NO_KEY } from './middleware.js';
/** The middleware's options (limiter, key, headers, trustProxy, failMode, shadow...), its result and what it needs of a limiter. */
export type { LimitedInfo, LimiterLike, Next, RateLimitOptions, RateLimitResult, ShadowHeaders } from './middleware.js';
/** The options ratelab/http and ratelab/fetch share, generic in what their callbacks are given. */
export type { SharedLimitOptions } from './limit-core.js';
/** What the middleware does when its limiter fails: `open` lets the request through, `closed` and `local` answer 503. */
export type { FailMode } from '../core/fail-over.js';
/** The same limiting as a Fastify `onRequest` hook. */
export { rateLimitHook } from './fastify.js';
/** The parts of Fastify's request and reply the hook uses. */
export type { FastifyReplyLike, FastifyRequestLike } from './fastify.js';
/** The header fields for a decision: IETF `RateLimit`/`RateLimit-Policy` and `X-RateLimit-*`, times in whole seconds. */
export { rateLimitHeaders } from './headers.js';
/** A denial's Retry-After in whole seconds (ms rounded up, at least 1); undefined when it can never be admitted. */
export { retryAfterSeconds } from './headers.js';
/** Which headers to send and how the policy is named in them. */
export type { HeaderField, HeaderOptions, PolicyInfo } from './headers.js';
/** The client's address, skipping trusted proxies in X-Forwarded-For. */
export { clientAddress } from './client-address.js';
/** The limiter key of a client address: IPv4 as it is, IPv6 as its network (`ipv6Subnet` bits, default 64). */
export { addressKey } from './address-key.js';
/** Turns `trustProxy` (false, a hop count, or proxy addresses/CIDRs) into what clientAddress takes. */
export { proxyTrust } from './client-address.js';
/** `TrustProxy`: the option as given; `ProxyTrust`: as checked. */
export type { ProxyTrust, TrustProxy } from './client-address.js';
