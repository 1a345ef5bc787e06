import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { RatelabError, describeValue } from '../core/errors.js';
import { isLoopbackAddress, remoteHostError } from '../core/loopback.js';

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
    throw new RatelabError('INVALID_ARGUMENT', `URL: expected an http:// URL, got ${describeValue(text)}`, {
      field: 'URL',
    });
  }
  if (url.protocol !== 'http:') {
    throw new RatelabError('INVALID_ARGUMENT', `URL: only http:// is supported, got ${describeValue(text)}`, {
      field: 'URL',
    });
  }
  if (allowRemote) return url;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) !== 0 ? [host] : await resolveAll(host);
  const remote = addresses.find((address) => !isLoopbackAddress(address));
  if (remote !== undefined) {
    throw remoteHostError('URL', url.host, isIP(host) === 0 ? { address: remote } : {});
  }
  return url;
}

async function resolveAll(host: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    throw new RatelabError(
      'ENDPOINT_UNAVAILABLE',
      `URL: cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { field: 'URL', cause: error },
    );
  }
}
