import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { RateLimiterRegistry } from '../tiers/registry.js';
import { addressKey, clientAddress, DEFAULT_IPV6_SUBNET, proxyTrust, type TrustProxy } from '../http/client-address.js';
import {
  rateLimit,
  rateLimitResult,
  type LimiterLike,
  type RateLimitResult,
  type ShadowHeaders,
} from '../http/middleware.js';

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
  /**
   * Every non-empty `X-API-Key` is a client of its own (under {@link API_KEY_PREFIX}), not
   * only the registry's clients: `ratelab attack` sends its scenario keys so. A made-up key
   * then buys a fresh quota, so this is for experiments, never for a public endpoint.
   */
  trustApiKeys?: boolean;
  /** Called when each response has been sent (not for {@link METRICS_PATH}). */
  onRequest?: (entry: DemoRequestLog) => void;
  /** Answers `GET /metrics` itself, before the limiter: such requests are neither limited, counted nor logged. */
  metrics?: (req: IncomingMessage, res: ServerResponse) => void;
  /** The rate-limit fields of a tier in shadow (see `RateLimitOptions.shadowHeaders`); default none. */
  shadowHeaders?: ShadowHeaders;
}

/** Where the demo API answers with its metrics, when given a `metrics` handler. */
export const METRICS_PATH = '/metrics';

/** Prefixes a client address's limiter key, so that no API key can name an address. */
export const ADDRESS_KEY_PREFIX = 'ip:';
/** Prefixes an API key the registry does not know, with `trustApiKeys`. */
export const API_KEY_PREFIX = 'key:';

/**
 * A small API behind the rate-limit middleware, to watch the headers change with `curl -i`:
 * the client id is the `X-API-Key` header when the tiers file knows that key (its tier from
 * the file), else the client address (IPv6 by its /64) under {@link ADDRESS_KEY_PREFIX}.
 * An unknown or absent key is limited by the address, so a made-up key per request buys no
 * quota and a key spelling someone's address does not spend theirs; without a registry no
 * key is known. `trustApiKeys` makes every key an identity, still apart from addresses. Every path answers 200 `{ ok, tier, remaining }` while the quota lasts,
 * with both the X-RateLimit-* and the IETF fields.
 */
export function createDemoApi(options: DemoApiOptions): Server {
  const trust = proxyTrust(options.trustProxy);
  const known = (id: string) => options.registry?.isClient(id) === true;
  const key = (req: IncomingMessage) => apiKeyOf(req, known, options.trustApiKeys === true) ?? addressOf(req, trust);
  const limit = rateLimit({
    ...(options.registry ? { registry: options.registry } : { limiter: options.limiter }),
    key,
    headers: { legacy: true, ietf: true },
    ...(options.shadowHeaders === undefined ? {} : { shadowHeaders: options.shadowHeaders }),
  });
  const { metrics } = options;
  return createServer((req, res) => {
    if (metrics && isMetricsRequest(req)) {
      metrics(req, res);
      return;
    }
    const started = performance.now();
    if (options.onRequest)
      res.once('finish', () => options.onRequest?.(logEntry(req, res, trust, performance.now() - started)));
    void limit(req, res, () => answer(req, res));
  });
}

/** `GET` (or `HEAD`) of {@link METRICS_PATH}, with or without a query. */
export function isMetricsRequest(req: IncomingMessage): boolean {
  const path = (req.url ?? '').split('?')[0];
  return path === METRICS_PATH && (req.method === 'GET' || req.method === 'HEAD');
}

/** The client address as a key: IPv6 by its /64, as the middleware's default key, then prefixed. */
function addressOf(req: IncomingMessage, trust: ReturnType<typeof proxyTrust>): string | undefined {
  const address = clientAddress(req, trust);
  return address === undefined ? undefined : ADDRESS_KEY_PREFIX + addressKey(address, DEFAULT_IPV6_SUBNET);
}

/**
 * The key of a request's `X-API-Key`: a known client's id as it is (the registry finds its
 * tier by it), any other id only when every key is trusted, prefixed; else no identity.
 */
function apiKeyOf(req: IncomingMessage, known: (id: string) => boolean, trustAll: boolean): string | undefined {
  const value = req.headers[API_KEY_HEADER];
  const id = typeof value === 'string' ? value.trim() : '';
  if (id === '') return undefined;
  if (known(id)) return id;
  return trustAll ? API_KEY_PREFIX + id : undefined;
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

function logEntry(
  req: IncomingMessage,
  res: ServerResponse,
  trust: ReturnType<typeof proxyTrust>,
  durationMs: number,
): DemoRequestLog {
  return {
    method: req.method ?? '?',
    path: req.url ?? '/',
    status: res.statusCode,
    address: clientAddress(req, trust),
    result: rateLimitResult(req),
    durationMs,
  };
}
