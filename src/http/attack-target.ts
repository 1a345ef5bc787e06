import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { RatelabError, describeValue } from '../errors.js';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether `address` (an IP address) is a loopback address. */
export function isLoopback(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && LOOPBACK.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/**
 * The URL to attack, checked: `http:` only, and every address its host resolves to on
 * loopback unless `allowRemote` (a load generator must not be pointed at someone else's
 * service by a typo). Throws `INVALID_ARGUMENT` for a bad URL, `REMOTE_TARGET` for a
 * remote host, `ENDPOINT_UNAVAILABLE` when the host does not resolve.
 */
export async function checkTarget(text: string, allowRemote: boolean): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RatelabError('INVALID_ARGUMENT', `URL: expected an http:// URL, got ${describeValue(text)}`, { field: 'URL' });
  }
  if (url.protocol !== 'http:') {
    throw new RatelabError('INVALID_ARGUMENT', `URL: only http:// is supported, got ${describeValue(text)}`, { field: 'URL' });
  }
  if (allowRemote) return url;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) !== 0 ? [host] : await resolveAll(host);
  const remote = addresses.find((address) => !isLoopback(address));
  if (remote !== undefined) {
    throw new RatelabError('REMOTE_TARGET', `URL: ${url.host} is not a loopback address (${remote}); pass --allow-remote to attack a service you run elsewhere`, { field: 'URL' });
  }
  return url;
}

async function resolveAll(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    throw new RatelabError('ENDPOINT_UNAVAILABLE', `URL: cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? String(error)})`, { field: 'URL', cause: error });
  }
}
