import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether `address` (an IP address, IPv4-mapped IPv6 included) is a loopback address. */
export function isLoopbackAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * Whether a URL's host names this machine without a name lookup: `localhost`, or a
 * loopback address (brackets around IPv6 allowed). Used where resolving is not wanted.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return host === 'localhost' || isLoopbackAddress(host);
}
