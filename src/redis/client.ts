import type { Redis } from 'ioredis';
import { RatelabError } from '../errors.js';
import { loadIoredis } from './load-ioredis.js';
import type { IoredisClient } from './run-script.js';
import { withTimeout } from './timeout.js';
import { isLoopbackHost, remoteHostError } from '../loopback.js';

/** ioredis client options that bound every command (a subset of ioredis's `RedisOptions`). */
export interface BoundedRedisOptions {
  enableOfflineQueue: false;
  maxRetriesPerRequest: 0;
  autoResendUnfulfilledCommands: false;
  /** ms a command may take before it fails. */
  commandTimeout: number;
  /** ms the connection may take before it fails. */
  connectTimeout: number;
  /** ms to wait before reconnect attempt `times` (1, 2, ...): 50 ms to 500 ms. */
  retryStrategy: (times: number) => number;
}

/** A connection {@link connectRedis} opened: an ioredis client, typed by what ratelab and its caller need. */
export interface RedisConnection extends IoredisClient {
  /** Closes the connection after pending replies. */
  quit(): Promise<unknown>;
  /** Closes the connection at once. */
  disconnect(): void;
}

/**
 * Client settings that keep every command bounded while Redis is down or hanging, instead
 * of ioredis's defaults (an offline queue and 20 retries per command, which hold a request
 * for seconds: envoy ratelimit #462). Commands fail at once while disconnected, time out
 * after `commandTimeoutMs`, and the client keeps reconnecting in the background (every
 * 50 ms to 500 ms), so a limiter recovers by itself when the server returns.
 */
export function boundedRedisOptions(commandTimeoutMs = 1000): BoundedRedisOptions {
  return {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: commandTimeoutMs,
    connectTimeout: Math.max(commandTimeoutMs, 1000),
    retryStrategy: (times: number) => Math.min(times * 50, 500),
  };
}

/** Options of {@link connectRedis}. */
export interface ConnectOptions {
  /** Allow a host that is not loopback (default false). */
  allowRemote?: boolean;
  /** ms to wait for the connection and a PING reply (default 2000). */
  connectTimeoutMs?: number;
}

/**
 * Connects to the Redis at `url` (`redis://host:port[/db]`) with {@link boundedRedisOptions}
 * and waits until it answers PING. Only loopback hosts unless `allowRemote`, so a lab run
 * cannot load a shared server by mistake. Throws `INVALID_ARGUMENT` for a bad URL, `REMOTE_TARGET` for a remote
 * one, `MISSING_DEPENDENCY` when the optional peer ioredis is not installed,
 * `REDIS_UNAVAILABLE` when nothing answers within `connectTimeoutMs`. The connection is an
 * ioredis client; its declared type names only what ratelab's types can without ioredis's.
 */
export function connectRedis(url: string, options: ConnectOptions = {}): Promise<RedisConnection> {
  return openRedis(url, options);
}

/** {@link connectRedis}, typed as the ioredis client it is (for the lab, which has ioredis). */
export async function openRedis(url: string, options: ConnectOptions = {}): Promise<Redis> {
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
