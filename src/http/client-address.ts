import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { RatelabError, describeValue } from '../core/errors.js';

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

/** The address as a key: mapped IPv4 unwrapped; undefined if it is not an IP address. */
function normalize(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? (mapped[1] as string) : address;
  return isIP(plain) === 0 ? undefined : plain.toLowerCase();
}

/** The IPv6 prefix length {@link addressKey} groups by unless told otherwise. */
export const DEFAULT_IPV6_SUBNET = 64;

/**
 * Validates the `ipv6Subnet` option: a prefix length 1-128, or `false` for whole
 * addresses; undefined is {@link DEFAULT_IPV6_SUBNET}. Throws `INVALID_ARGUMENT`.
 */
export function ipv6Subnet(value: number | false | undefined): number | false {
  if (value === undefined) return DEFAULT_IPV6_SUBNET;
  if (value === false) return false;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 128) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `ipv6Subnet: expected a prefix length from 1 to 128, or false, got ${describeValue(value)}`,
      { field: 'ipv6Subnet' },
    );
  }
  return value;
}

/**
 * The limiter key of a client address: IPv4 (and IPv4-mapped IPv6) is the address itself;
 * IPv6 is its network at `subnet` bits (`2001:db8:1:2::/64`), since one subscriber is
 * handed a whole /64 or more and would otherwise get a fresh quota per address. `false`
 * keys each IPv6 address alone. `address` must be an IP address (as clientAddress gives).
 */
export function addressKey(address: string, subnet: number | false): string {
  const plain = normalize(address.split('%')[0]) ?? address;
  if (isIP(plain) !== 6) return plain;
  if (subnet === false) return canonicalIPv6(plain);
  return `${canonicalIPv6(masked(ipv6Groups(plain), subnet).join(':'))}/${subnet}`;
}

/** The eight 16-bit groups of a valid IPv6 address (an embedded IPv4 tail is two groups). */
function ipv6Groups(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const parse = (part: string): number[] => (part === '' ? [] : part.split(':').flatMap(groupsOf));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
}

function groupsOf(part: string): number[] {
  if (!part.includes('.')) return [Number.parseInt(part, 16)];
  const [a = 0, b = 0, c = 0, d = 0] = part.split('.').map(Number);
  return [a * 256 + b, c * 256 + d];
}

/** The groups with every bit past the first `bits` cleared, as hex. */
function masked(groups: number[], bits: number): string[] {
  return groups.map((group, i) => {
    const keep = Math.min(16, Math.max(0, bits - i * 16));
    const mask = keep === 0 ? 0 : (0xffff << (16 - keep)) & 0xffff;
    return (group & mask).toString(16);
  });
}

/** The RFC 5952 text of an IPv6 address (lower case, longest zero run as `::`), as WHATWG URL writes it. */
function canonicalIPv6(address: string): string {
  return new URL(`http://[${address}]/`).hostname.slice(1, -1);
}
