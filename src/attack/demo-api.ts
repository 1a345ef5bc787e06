import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { RateLimiterRegistry } from '../tiers/registry.js';
import { addressKey, clientAddress, DEFAULT_IPV6_SUBNET, proxyTrust, type TrustProxy } from '../http/client-address.js';
import { rateLimit, rateLimitResult, type LimiterLike, type RateLimitResult } from '../http/middleware.js';

/** The header that names a client (and so its tier) to the demo API. */
export const API_KEY_HEADER = 'x-api-key';

/** One finished request, for a log line. */
export interface DemoRequestLog {
  method: string;
  path: string;
  status: number;
  /** The client address (after proxy trust). */
  address: string | undefined;
  result: RateLimitResult | undefined;
  durationMs: number;
}

/** Options of {@link createDemoApi}: `limiter` or `registry`, as for `rateLimit`. */
export interface DemoApiOptions {
  limiter?: LimiterLike;
  registry?: RateLimiterRegistry;
  trustProxy?: TrustProxy;
  /** Called when each response has been sent. */
  onRequest?: (entry: DemoRequestLog) => void;
}

/**
 * A small API behind the rate-limit middleware, to watch the headers change with `curl -i`:
 * the client id is the `X-API-Key` header (its tier from the tiers file), else the client
 * address. Every path answers 200 `{ ok, tier, remaining }` while the quota lasts, with both
 * the X-RateLimit-* and the IETF fields.
 */
export function createDemoApi(options: DemoApiOptions): Server {
  const trust = proxyTrust(options.trustProxy);
  const key = (req: IncomingMessage) => apiKey(req) ?? addressOf(req, trust);
  const limit = rateLimit({
    ...(options.registry ? { registry: options.registry } : { limiter: options.limiter }),
    key,
    headers: { legacy: true, ietf: true },
  });
  return createServer((req, res) => {
    const started = performance.now();
    if (options.onRequest) res.once('finish', () => options.onRequest?.(logEntry(req, res, trust, performance.now() - started)));
    void limit(req, res, () => answer(req, res));
  });
}

/** The client address as the middleware's default key makes it (IPv6 by its /64). */
function addressOf(req: IncomingMessage, trust: ReturnType<typeof proxyTrust>): string | undefined {
  const address = clientAddress(req, trust);
  return address === undefined ? undefined : addressKey(address, DEFAULT_IPV6_SUBNET);
}

function apiKey(req: IncomingMessage): string | undefined {
  const value = req.headers[API_KEY_HEADER];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function answer(req: IncomingMessage, res: ServerResponse): void {
  const result = rateLimitResult(req);
  const body = JSON.stringify({ ok: true, tier: result?.policy, remaining: finiteOrNull(result?.decision?.remaining) });
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** JSON has no Infinity: an unlimited tier's remaining is written as null. */
function finiteOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isFinite(value) ? value : null;
}

function logEntry(req: IncomingMessage, res: ServerResponse, trust: ReturnType<typeof proxyTrust>, durationMs: number): DemoRequestLog {
  return {
    method: req.method ?? '?',
    path: req.url ?? '/',
    status: res.statusCode,
    address: clientAddress(req, trust),
    result: rateLimitResult(req),
    durationMs,
  };
}
