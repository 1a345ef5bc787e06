import { BlockList, isIP } from 'node:net';
import { RatelabError } from './errors.js';

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

/**
 * The one error for a host that is not this machine where only loopback is allowed
 * without `--allow-remote` (`allowRemote`): an attack target, a Redis URL. Code
 * `REMOTE_TARGET` (exit 2); `label` prefixes the message (a flag or argument name),
 * `address` is what the host resolved to when it is a name.
 */
export function remoteHostError(
  label: string,
  host: string,
  options: { address?: string; field?: string } = {},
): RatelabError {
  const resolved = options.address === undefined ? '' : ` (resolves to ${options.address})`;
  return new RatelabError(
    'REMOTE_TARGET',
    `${label}: ${host}${resolved} is not a loopback address; pass --allow-remote to use a host that is not this machine on purpose`,
    {
      field: options.field ?? label,
    },
  );
}
