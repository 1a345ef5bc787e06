// Client addresses as limiter keys, runtime-neutral (no `node:` module): ratelab/http and
// ratelab/fetch both key by them, and ratelab/fetch runs where node:net does not exist
// (workerd without Node compatibility, a browser-like isolate).
import { RatelabError, describeValue } from '../core/errors.js';

const IPV4_PART = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${IPV4_PART}(?:\\.${IPV4_PART}){3}$`);
const IPV6_CHARS = /^[0-9a-fA-F:.]+$/;
const ZONE = /^[0-9a-zA-Z\-.:]+$/;

/**
 * The family of an IP address as text, as node:net's `isIP` answers it: 4, 6 (a zone
 * index, `fe80::1%eth0`, allowed), or 0 for anything else. IPv6 is checked by the WHATWG
 * URL parser, which every runtime has.
 */
export function ipFamily(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  if (!text.includes(':')) return 0;
  const [address = '', zone, ...more] = text.split('%');
  if (more.length > 0 || (zone !== undefined && !ZONE.test(zone)) || !IPV6_CHARS.test(address)) return 0;
  try {
    new URL(`http://[${address}]/`);
    return 6;
  } catch {
    return 0;
  }
}

/**
 * The last address {@link normalizeAddress} was given, and its answer: the requests of one
 * keep-alive connection all carry the same address, so most calls are answered here.
 */
let lastAddress: string | undefined;
let lastNormalized: string | undefined;

/** The address as a key: mapped IPv4 (`::ffff:1.2.3.4`) unwrapped, lower case; undefined if it is not an IP address. */
export function normalizeAddress(address: string | undefined): string | undefined {
  if (address === undefined) return undefined;
  if (address === lastAddress) return lastNormalized;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const plain = mapped ? (mapped[1] as string) : address;
  const normalized = ipFamily(plain) === 0 ? undefined : plain.toLowerCase();
  lastAddress = address;
  lastNormalized = normalized;
  return normalized;
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
  if (address === lastKeyed.address && subnet === lastKeyed.subnet) return lastKeyed.key;
  const key = keyOfAddress(address, subnet);
  lastKeyed = { address, subnet, key };
  return key;
}

/** The last {@link addressKey} answer (one keep-alive connection: one address). */
let lastKeyed: { address: string | undefined; subnet: number | false; key: string } = {
  address: undefined,
  subnet: false,
  key: '',
};

function keyOfAddress(address: string, subnet: number | false): string {
  const plain = normalizeAddress(address.split('%')[0]) ?? address;
  if (ipFamily(plain) !== 6) return plain;
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
