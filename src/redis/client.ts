import type { Redis, RedisOptions } from 'ioredis';
import { RatelabError } from '../errors.js';
import { loadIoredis } from './load-ioredis.js';
import { withTimeout } from './timeout.js';
import { isLoopbackHost, remoteHostError } from '../loopback.js';

/**
 * Client settings that keep every command bounded while Redis is down or hanging, instead
 * of ioredis's defaults (an offline queue and 20 retries per command, which hold a request
 * for seconds: envoy ratelimit #462). Commands fail at once while disconnected, time out
 * after `commandTimeoutMs`, and the client keeps reconnecting in the background (every
 * 50 ms to 500 ms), so a limiter recovers by itself when the server returns.
 */
export function boundedRedisOptions(commandTimeoutMs = 1000): RedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: Math.max(commandTimeoutMs, 1000),
    retryStrategy: (times: number) => Math.min(times * 50, 500),
  };
}

/**
 * Connects to the Redis at `url` (`redis://host:port[/db]`) with {@link boundedRedisOptions}
 * and waits until it answers PING. Only loopback hosts unless `allowRemote`, so a lab run
 * cannot load a shared server by mistake. Throws `INVALID_ARGUMENT` for a bad or remote
 * URL, `REDIS_UNAVAILABLE` when nothing answers within `connectTimeoutMs`.
 */
export async function connectRedis(url: string, options: { allowRemote?: boolean; connectTimeoutMs?: number } = {}): Promise<Redis> {
  const parsed = parseRedisUrl(url, options.allowRemote ?? false);
  const { Redis } = await loadIoredis();
  const client = new Redis(parsed.href, { ...boundedRedisOptions(), lazyConnect: true });
  client.on('error', () => {
    // Reported through the commands that fail; without a listener ioredis logs to stderr.
  });
  try {
    await withTimeout(client.connect().then(() => client.ping()), options.connectTimeoutMs ?? 2000);
    return client;
  } catch (error) {
    client.disconnect();
    const why = error instanceof Error ? error.message : String(error);
    throw new RatelabError('REDIS_UNAVAILABLE', `cannot reach Redis at ${parsed.host}: ${why}`, { field: 'redis', cause: error });
  }
}

/** Parses a `redis://` URL, refusing non-loopback hosts unless `allowRemote` (`REMOTE_TARGET`). */
export function parseRedisUrl(url: string, allowRemote: boolean): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new RatelabError('INVALID_ARGUMENT', `--redis: expected a URL such as redis://127.0.0.1:6380, got ${JSON.stringify(url)}`, { field: 'redis' });
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new RatelabError('INVALID_ARGUMENT', `--redis: expected a redis:// or rediss:// URL, got ${JSON.stringify(url)}`, { field: 'redis' });
  }
  if (!allowRemote && !isLoopbackHost(parsed.hostname)) {
    throw remoteHostError('--redis', parsed.hostname, { field: 'redis' });
  }
  return parsed;
}
