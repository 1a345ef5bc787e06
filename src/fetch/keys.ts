// Client keys of a Fetch-API request: the address the runtime gives (Bun, Deno, Hono's Node
// adapter), or a header the operator configured. Runtime-neutral.
import { RatelabError, describeValue } from '../core/errors.js';
import { addressKey, ipv6Subnet, normalizeAddress } from '../http/address-key.js';

/** A Fetch request, or a Hono context (whose `req.raw` is one): what the key helpers read. */
export type RequestSource = Request | { readonly req: { readonly raw: Request } };

/** Options of the key helpers. */
export interface HeaderKeyOptions {
  /** An IP address in the header is grouped as `ipv6Subnet` says (1-128 bits, or false: whole addresses). Default 64. */
  ipv6Subnet?: number | false;
}

/**
 * The address the runtime says the request came from, when it says: `args` are what the
 * runtime passed the handler after the request. Bun's `server` (`server.requestIP`),
 * Deno's handler info (`info.remoteAddr.hostname`), `@hono/node-server`'s env (its
 * `incoming.socket.remoteAddress`). Workers give none (see {@link cfConnectingIp}). Never
 * read from a header. IPv4-mapped IPv6 is written as IPv4; undefined when there is none.
 */
export function runtimeAddress(request: Request, args: readonly unknown[]): string | undefined {
  const first = args[0] as
    | {
        requestIP?: (request: Request) => { address?: unknown } | null | undefined;
        remoteAddr?: { hostname?: unknown };
        incoming?: { socket?: { remoteAddress?: unknown } };
      }
    | null
    | undefined;
  if (typeof first !== 'object' || first === null) return undefined;
  let address: unknown;
  if (typeof first.requestIP === 'function') address = first.requestIP(request)?.address;
  else if (first.remoteAddr !== undefined) address = first.remoteAddr?.hostname;
  else address = first.incoming?.socket?.remoteAddress;
  return typeof address === 'string' ? normalizeAddress(address) : undefined;
}

/**
 * A `key` function reading the header `name`: an IP address in it is keyed as
 * `addressKey` keys it (IPv6 by its /64 unless `ipv6Subnet` says otherwise), any other
 * value (an API key, a user id your gateway set) is the key as it is, trimmed; absent or
 * empty: no key (`noKey` applies). Only for a header something you trust sets or
 * overwrites on every request: a client can send any header, and a forged value would
 * give it a fresh quota per request.
 */
export function headerKey(name: string, options: HeaderKeyOptions = {}): (source: RequestSource) => string | undefined {
  if (typeof name !== 'string' || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
    throw new RatelabError('INVALID_ARGUMENT', `headerKey: expected a header name, got ${describeValue(name)}`, {
      field: 'name',
    });
  }
  const subnet = ipv6Subnet(options.ipv6Subnet);
  return (source) => {
    const value = requestOf(source).headers.get(name)?.trim();
    if (value === undefined || value === '') return undefined;
    const address = normalizeAddress(value);
    return address === undefined ? value : addressKey(address, subnet);
  };
}

/**
 * A `key` function for Cloudflare (Workers, or any server behind Cloudflare's proxy):
 * the client address from `CF-Connecting-IP`, which Cloudflare sets on every request it
 * forwards (overwriting one the client sent), IPv6 grouped by `ipv6Subnet` (default /64).
 * A value that is not an IP address is no key. Trust it only where every request comes
 * through Cloudflare: a server reachable directly would take a forged one.
 */
export function cfConnectingIp(options: HeaderKeyOptions = {}): (source: RequestSource) => string | undefined {
  const subnet = ipv6Subnet(options.ipv6Subnet);
  return (source) => {
    const address = normalizeAddress(requestOf(source).headers.get('cf-connecting-ip')?.trim());
    return address === undefined ? undefined : addressKey(address, subnet);
  };
}

function requestOf(source: RequestSource): Request {
  return 'req' in source ? source.req.raw : source;
}
