import type { IncomingMessage } from 'node:http';
import { BlockList } from 'node:net';
import { RatelabError, describeValue } from '../core/errors.js';
import { ipFamily as isIP, normalizeAddress as normalize } from './address-key.js';

/** Re-exported for the modules that key by a client address (the runtime-neutral code is address-key.ts). */
export { addressKey, DEFAULT_IPV6_SUBNET, ipv6Subnet } from './address-key.js';

/**
 * Whom to believe about a request's origin:
 * - `false` (default): only the TCP peer's address; `X-Forwarded-For` is ignored, since
 *   any client can send it.
 * - a number `n` >= 0: exactly `n` proxies stand in front of the server (the socket peer
 *   is the nearest), each appending the address it received from to `X-Forwarded-For`:
 *   the client is the `n`-th entry from the right. Fewer entries than hops: the left-most.
 * - a list of proxy addresses or CIDR ranges (`"10.0.0.0/8"`, `"::1"`): walking from the
 *   socket peer leftwards through `X-Forwarded-For`, the first address that is not a
 *   trusted proxy is the client. If the peer itself is not trusted, the header is ignored.
 * In every mode an entry that is not an IP address ends the walk: the last address before
 * it (nearer the server) is used, so a forged entry never becomes the key.
 */
export type TrustProxy = false | number | readonly string[];

/** A resolved {@link TrustProxy}: how many hops, or which addresses, to trust. */
export type ProxyTrust = { hops: number } | { proxies: BlockList };

/** Validates a {@link TrustProxy}; throws `INVALID_ARGUMENT` naming the bad entry. */
export function proxyTrust(trust: TrustProxy | undefined): ProxyTrust {
  if (trust === undefined || trust === false) return { hops: 0 };
  if (typeof trust === 'number') {
    if (!Number.isSafeInteger(trust) || trust < 0) {
      throw new RatelabError(
        'INVALID_ARGUMENT',
        `trustProxy: expected a whole number of hops >= 0, got ${describeValue(trust)}`,
        { field: 'trustProxy' },
      );
    }
    return { hops: trust };
  }
  if (!Array.isArray(trust)) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `trustProxy: expected false, a number of hops or a list of proxy addresses, got ${describeValue(trust)}`,
      { field: 'trustProxy' },
    );
  }
  const proxies = new BlockList();
  for (const entry of trust) addProxy(proxies, entry);
  return { proxies };
}

function addProxy(list: BlockList, entry: unknown): void {
  const [address, bits, extra] = typeof entry === 'string' ? entry.trim().split('/') : [];
  const family = isIP(address ?? '');
  const prefix = bits === undefined ? undefined : Number(bits);
  const maxBits = family === 6 ? 128 : 32;
  if (
    family === 0 ||
    extra !== undefined ||
    (prefix !== undefined &&
      !(Number.isInteger(prefix) && prefix >= 0 && prefix <= maxBits && /^\d+$/.test(bits ?? '')))
  ) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `trustProxy: expected an IP address or CIDR range, got ${describeValue(entry)}`,
      { field: 'trustProxy' },
    );
  }
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (prefix === undefined) list.addAddress(address as string, type);
  else list.addSubnet(address as string, prefix, type);
}

/**
 * The client's address under `trust`, IPv4-mapped IPv6 (`::ffff:1.2.3.4`) written as
 * IPv4; undefined when the socket has no peer address (the connection is already gone).
 */
export function clientAddress(req: IncomingMessage, trust: ProxyTrust): string | undefined {
  const peer = normalize(req.socket?.remoteAddress);
  if (peer === undefined) return undefined;
  if ('hops' in trust && trust.hops === 0) return peer;
  const chain = forwardedFor(req);
  if ('hops' in trust) return byHops(chain, peer, trust.hops);
  return byTrustList(chain, peer, trust.proxies);
}

/** The `X-Forwarded-For` entries, left (origin) to right (nearest proxy). */
function forwardedFor(req: IncomingMessage): string[] {
  const header = req.headers['x-forwarded-for'];
  const text = Array.isArray(header) ? header.join(',') : (header ?? '');
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

function byHops(chain: string[], peer: string, hops: number): string {
  let client = peer;
  for (let i = chain.length - 1, hop = 1; i >= 0 && hop <= hops; i--, hop++) {
    const address = normalize(chain[i]);
    if (address === undefined) break;
    client = address;
  }
  return client;
}

function byTrustList(chain: string[], peer: string, proxies: BlockList): string {
  let client = peer;
  for (let i = chain.length - 1; i >= 0 && isTrusted(client, proxies); i--) {
    const address = normalize(chain[i]);
    if (address === undefined) break;
    client = address;
  }
  return client;
}

function isTrusted(address: string, proxies: BlockList): boolean {
  return proxies.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');
}
