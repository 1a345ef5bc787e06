// `ratelab/fetch`: rate limiting over the Fetch API (Request/Response) for Bun, Deno,
// Cloudflare Workers, Next.js and Hono. Loads no package and no `node:` module, and
// references no Node global: it runs on workerd without Node compatibility.

/** Wraps a Fetch handler `(request, ...rest) => Response`: 429 with Retry-After when denied, the rate-limit fields on the handler's response otherwise. */
export { rateLimitFetch } from './middleware.js';
/** Decides one request for a framework that answers itself (Next.js middleware): `{ allowed, headers, response?, result }`. */
export { decide } from './middleware.js';
/** For a handler that writes the rate-limit fields into its own Response: the fields of its request, as a plain object; the middleware then leaves that Response as it is. */
export { takeRateLimitFields } from './take-fields.js';
/** Checks the options once and returns the function deciding each request (what `decide` keeps per options object). */
export { fetchDecider } from './middleware.js';
/** The options (limiter or registry, key, cost, headers, failMode, shadow...), what `key` is given, and what `decide` answers. */
export type { FetchDecider, FetchDecision, FetchHandler, FetchInfo, FetchRateLimitOptions } from './middleware.js';
/** Hono's middleware, `(c, next)`, without importing Hono. */
export { rateLimitHono } from './hono.js';
/** The parts of a Hono context it uses, and its options (callbacks given the context). */
export type { HonoContextLike, HonoRateLimitOptions } from './hono.js';
/** Key helpers: a header you trust (an IP in it grouped, IPv6 by /64), Cloudflare's CF-Connecting-IP, and the address the runtime gave. */
export { cfConnectingIp, headerKey, runtimeAddress } from './keys.js';
/** What the key helpers read (a Request or a Hono context) and their options. */
export type { HeaderKeyOptions, RequestSource } from './keys.js';
/** The limiter key of a client address: IPv4 as it is, IPv6 as its network (`ipv6Subnet` bits, default 64). */
export { addressKey } from '../http/address-key.js';
/** The header fields for a decision, and a denial's Retry-After in whole seconds (the same as ratelab/http's). */
export { rateLimitHeaders, retryAfterSeconds } from '../http/headers.js';
/** Which headers to send and how the policy is named in them. */
export type { HeaderField, HeaderOptions, PolicyInfo } from '../http/headers.js';
/** The key under which requests without a usable key share one quota (`noKey: 'share'`, the default). */
export { SHARED_NO_KEY } from '../http/limit-core.js';
/** The shared options, the result of a decision, what `onLimited` gets, and what the middleware needs of a limiter. */
export type {
  LimitedInfo,
  LimiterLike,
  RateLimitResult,
  ShadowHeaders,
  SharedLimitOptions,
} from '../http/limit-core.js';
/** What the middleware does when its limiter fails: `open` lets the request through, `closed` and `local` answer 503. */
export type { FailMode } from '../core/fail-over.js';
