import type { IncomingMessage, ServerResponse } from 'node:http';
import { addressKey, clientAddress, ipv6Subnet, proxyTrust, type TrustProxy } from './client-address.js';
import type { HeaderField } from './headers.js';
import {
  limitEngine,
  type LimitedInfo,
  type RateLimitResult,
  type SharedLimitOptions,
  type Verdict,
} from './limit-core.js';

export type { LimitedInfo, LimiterLike, RateLimitResult, ShadowHeaders } from './limit-core.js';
export { SHARED_NO_KEY } from './limit-core.js';

/** The continuation of a middleware stack; Express's `next` fits. */
export type Next = (error?: unknown) => void;

/**
 * Options of {@link rateLimit}: the shared ones (limiter or registry, key, cost, headers,
 * failMode, onError, shadow... see `SharedLimitOptions`), each callback given the request,
 * and node:http's own.
 */
export interface RateLimitOptions<Req extends IncomingMessage = IncomingMessage> extends SharedLimitOptions<
  [req: Req]
> {
  /** Whether to believe `X-Forwarded-For` for the default key. Default false. */
  trustProxy?: TrustProxy;
  /**
   * Answers a denied request instead of the default JSON body; status and headers are set
   * already. A promise it returns is awaited; if it throws or rejects, that is a limiter
   * failure: `onError` is told and the fail mode applies.
   */
  onLimited?: (req: Req, res: ServerResponse, info: LimitedInfo) => unknown;
}

const results = new WeakMap<IncomingMessage, RateLimitResult>();

/** How `req` was decided by a {@link rateLimit} middleware, once it has run. */
export function rateLimitResult(req: IncomingMessage): RateLimitResult | undefined {
  return results.get(req);
}

/**
 * A 429 middleware for `node:http` and Express-style stacks: `(req, res, next?)`. It asks
 * the limiter about the request's key, sets the rate-limit headers (see
 * `rateLimitHeaders`) from that decision, and either calls `next()` or answers:
 * - denied: 429, `Retry-After` in whole seconds rounded up (at least 1), a small JSON body;
 *   a request whose cost exceeds the policy's capacity can never pass: 429 without
 *   `Retry-After`, body `cost_exceeds_limit`.
 * - the limiter (or `key`, `cost`, `onLimited`) throws or rejects, or `consume` answers
 *   no Decision: fail `open` calls `next()` without rate-limit headers, fail `closed`
 *   answers 503; either way `onError` is told. A Redis
 *   limiter's own `fail-open` / `fail-closed` decisions (its `reason`) are handled alike,
 *   the 503 with its Retry-After.
 * - no usable key with `noKey: 'reject'`: 400.
 * In shadow (`shadow: true`) it answers none of these itself: every request goes on.
 * With plain `node:http`, pass the handler as `next`. The returned promise never rejects
 * for the middleware's own failures; it rejects only if `next` itself throws.
 */
export function rateLimit<Req extends IncomingMessage = IncomingMessage>(
  options: RateLimitOptions<Req>,
): (req: Req, res: ServerResponse, next?: Next) => Promise<void> {
  const engine = limitEngine<[Req]>(options, {
    defaultKey: () => defaultKey(options),
    warn: (message) => process.emitWarning(message, 'RatelabWarning'),
  });
  const { onLimited } = options;

  return async (req, res, next) => {
    const args: [Req] = [req];
    let verdict = await engine.decide(args);
    results.set(req, verdict.result);
    let passes: boolean;
    if (!verdict.pass && verdict.limited !== undefined && onLimited) {
      setFields(res, verdict.fields);
      res.statusCode = 429;
      try {
        await onLimited(req, res, verdict.limited);
        passes = false;
      } catch (error) {
        // Undo the denial's status and fields, so a fail-open request goes on as if unlimited.
        if (!res.headersSent) {
          res.statusCode = 200;
          for (const [name] of verdict.fields) res.removeHeader(name);
        }
        verdict = engine.failure(error, args, verdict.result);
        results.set(req, verdict.result);
        // A failure after the answer was begun (an `onLimited` that threw midway) can only end it.
        if (verdict.pass && res.headersSent) {
          res.end();
          passes = false;
        } else passes = send(res, verdict);
      }
    } else passes = send(res, verdict);
    engine.report(verdict.result, args);
    // Outside the engine: an error of the application's own handler is not a limiter failure.
    if (passes) next?.();
  };
}

/** Sets the verdict's fields, and answers it unless it passes; returns whether it passes. */
function send(res: ServerResponse, verdict: Verdict): boolean {
  setFields(res, verdict.fields);
  if (verdict.pass) return true;
  sendJson(res, verdict.status, verdict.body);
  return false;
}

function setFields(res: ServerResponse, fields: readonly HeaderField[]): void {
  if (res.headersSent) return;
  for (const [name, value] of fields) res.setHeader(name, value);
}

/** The client address as a key: see `trustProxy` and `ipv6Subnet`. */
function defaultKey(options: RateLimitOptions<never>): (req: IncomingMessage) => string | undefined {
  const trust = proxyTrust(options.trustProxy);
  const subnet = ipv6Subnet(options.ipv6Subnet);
  return (req) => {
    const address = clientAddress(req, trust);
    return address === undefined ? undefined : addressKey(address, subnet);
  };
}

function sendJson(res: ServerResponse, status: number, body: object): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
