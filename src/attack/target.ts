import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { RatelabError, describeValue } from '../core/errors.js';
import { isLoopbackAddress, remoteHostError } from '../core/loopback.js';

/**
 * The URL to attack, checked: `http:` only, and every address its host resolves to on
 * loopback unless `allowRemote` (a load generator must not be pointed at someone else's
 * service by a typo). Throws `INVALID_ARGUMENT` for a bad URL, `REMOTE_TARGET` for a
 * remote host, `ENDPOINT_UNAVAILABLE` when the host does not resolve. `label` names the
 * argument or flag in messages (`--metrics-url` checks its URL the same way).
 */
export async function checkTarget(text: string, allowRemote: boolean, label = 'URL'): Promise<URL> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RatelabError('INVALID_ARGUMENT', `${label}: expected an http:// URL, got ${describeValue(text)}`, {
      field: label,
    });
  }
  if (url.protocol !== 'http:') {
    throw new RatelabError('INVALID_ARGUMENT', `${label}: only http:// is supported, got ${describeValue(text)}`, {
      field: label,
    });
  }
  if (allowRemote) return url;
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses = isIP(host) !== 0 ? [host] : await resolveAll(host, label);
  const remote = addresses.find((address) => !isLoopbackAddress(address));
  if (remote !== undefined) {
    throw remoteHostError(label, url.host, isIP(host) === 0 ? { address: remote } : {});
  }
  return url;
}

async function resolveAll(host: string, label: string): Promise<string[]> {
  try {
    return (await lookup(host, { all: true })).map((entry) => entry.address);
  } catch (error) {
    throw new RatelabError(
      'ENDPOINT_UNAVAILABLE',
      `${label}: cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { field: label, cause: error },
    );
  }
}
