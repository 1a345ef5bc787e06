import type { Redis } from 'ioredis';
import { RatelabError } from '../core/errors.js';
import { loadIoredis } from './load-ioredis.js';
import type { IoredisClient } from './run-script.js';
import { withTimeout } from './timeout.js';
import { isLoopbackHost, remoteHostError } from '../core/loopback.js';

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
  /** Allow a host that is not loopback (default false); with Sentinels, any Sentinel's host or the master's. */
  allowRemote?: boolean;
  /** ms to wait for the connection and a PING reply (default 2000). */
  connectTimeoutMs?: number;
}

/** A Sentinel's address. */
export interface SentinelAddress {
  host: string;
  /** 1..65535. */
  port: number;
}

/**
 * A master found through Redis Sentinel: the Sentinels to ask (at least one) and the
 * name of the master group they monitor (`sentinel monitor NAME ...`). After a failover
 * the client asks them again and follows the promoted replica.
 */
export interface SentinelTarget {
  sentinels: readonly SentinelAddress[];
  /** The master group's name. */
  name: string;
  /** Database index (default 0); one the server does not have is refused. */
  db?: number;
}

/**
 * Where {@link connectRedis} connects: a `redis://host:port[/db]` (or `rediss://`) URL, a
 * `redis+sentinel://host:port[,host:port...]/name[/db]` URL, or a {@link SentinelTarget}.
 */
export type RedisTarget = string | SentinelTarget;

/** A {@link RedisTarget}, checked: one server, or a master behind Sentinels. */
export type ParsedRedisTarget =
  | { kind: 'server'; url: URL; db: number; label: string }
  | { kind: 'sentinel'; sentinels: SentinelAddress[]; name: string; db: number; label: string };

/**
 * Connects to the Redis at `target` with {@link boundedRedisOptions} and waits until it
 * answers PING: a server by URL, or the master a group of Sentinels names
 * (`redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster`, or `{ sentinels, name }`),
 * whom the client follows to the promoted replica after a failover. The database of the
 * URL's path (`/3`) is selected, on every reconnection too. Only loopback hosts (every
 * Sentinel, and the master they name) unless `allowRemote`, so a lab run cannot load a
 * shared server by mistake. Throws `INVALID_ARGUMENT` for a bad URL or a database the
 * server does not have, `REMOTE_TARGET` for a remote host, `MISSING_DEPENDENCY` when the
 * optional peer ioredis is not installed, `REDIS_UNAVAILABLE` when nothing answers within
 * `connectTimeoutMs`. The connection is an ioredis client; its declared type names only
 * what ratelab's types can without ioredis's.
 */
export function connectRedis(target: RedisTarget, options: ConnectOptions = {}): Promise<RedisConnection> {
  return openRedis(target, options);
}

/** {@link connectRedis}, typed as the ioredis client it is (for the lab, which has ioredis). */
export async function openRedis(target: RedisTarget, options: ConnectOptions = {}): Promise<Redis> {
  const allowRemote = options.allowRemote ?? false;
  const parsed = parseRedisTarget(target, allowRemote);
  const { Redis } = await loadIoredis();
  const client = new Redis({ ...ioredisOptionsOf(parsed, allowRemote), ...boundedRedisOptions(), lazyConnect: true });
  client.on('error', () => {
    // Reported through the commands that fail; without a listener ioredis logs to stderr.
  });
  try {
    await withTimeout(
      client.connect().then(() => client.ping()),
      options.connectTimeoutMs ?? 2000,
    );
  } catch (error) {
    client.disconnect();
    const why = error instanceof Error ? error.message : String(error);
    throw new RatelabError('REDIS_UNAVAILABLE', `cannot reach Redis at ${parsed.label}: ${why}`, {
      field: 'redis',
      cause: error,
    });
  }
  try {
    await checkConnected(client, parsed, allowRemote);
  } catch (error) {
    client.disconnect();
    throw error;
  }
  return client;
}

/**
 * ioredis's options for `target`. The URL is not handed to ioredis: it would select the
 * database in the background and, when the server has no such database, only emit an
 * error event and go on in database 0. With Sentinels, loopback-only also keeps ioredis
 * from adding the Sentinels they announce (`updateSentinels`), which could be anywhere.
 */
function ioredisOptionsOf(target: ParsedRedisTarget, allowRemote: boolean): Record<string, unknown> {
  if (target.kind === 'sentinel') {
    return {
      sentinels: target.sentinels,
      name: target.name,
      db: target.db,
      updateSentinels: allowRemote,
      sentinelRetryStrategy: (times: number) => Math.min(times * 50, 500),
      sentinelCommandTimeout: 1000,
    };
  }
  const { url } = target;
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 6379 : Number(url.port),
    db: target.db,
    ...(url.username === '' ? {} : { username: decodeURIComponent(url.username) }),
    ...(url.password === '' ? {} : { password: decodeURIComponent(url.password) }),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

/**
 * After PING: selects the target's database in the foreground, so a database the server
 * does not have (`ERR DB index is out of range`) is refused instead of writing to 0; and,
 * through Sentinels, checks that the master they named is loopback too.
 */
async function checkConnected(client: Redis, target: ParsedRedisTarget, allowRemote: boolean): Promise<void> {
  try {
    await withTimeout(client.select(target.db), 2000);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `--redis: database ${target.db} is not available on ${target.label}: ${why}`,
      { field: 'redis', cause: error },
    );
  }
  const master = client.stream?.remoteAddress;
  if (target.kind === 'sentinel' && !allowRemote && master !== undefined && !isLoopbackHost(master)) {
    throw remoteHostError(`--redis: the master ${target.name} (named by the Sentinels)`, master, { field: 'redis' });
  }
}

const URL_EXAMPLE =
  'redis://127.0.0.1:6380, redis://127.0.0.1:6380/2 or redis+sentinel://127.0.0.1:26379,127.0.0.1:26380/mymaster';

/**
 * Checks a {@link RedisTarget}: the URL's form, its database (a whole number, default 0),
 * and that every host (each Sentinel's) is loopback unless `allowRemote` (`REMOTE_TARGET`).
 * `INVALID_ARGUMENT` otherwise, naming what is wrong.
 */
export function parseRedisTarget(target: RedisTarget, allowRemote: boolean): ParsedRedisTarget {
  const parsed = typeof target === 'string' ? parseUrl(target) : sentinelTargetOf(target);
  const hosts = parsed.kind === 'server' ? [parsed.url.hostname] : parsed.sentinels.map((s) => s.host);
  for (const host of hosts) {
    if (!allowRemote && !isLoopbackHost(host)) throw remoteHostError('--redis', host, { field: 'redis' });
  }
  return parsed;
}

function parseUrl(text: string): ParsedRedisTarget {
  if (typeof text === 'string' && text.startsWith('redis+sentinel://')) return parseSentinelUrl(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw badUrl(`expected a URL such as ${URL_EXAMPLE}, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw badUrl(`expected a redis://, rediss:// or redis+sentinel:// URL, got ${JSON.stringify(text)}`);
  }
  const path = url.pathname.replace(/^\//, '');
  const db = path === '' ? 0 : databaseOf(path, text);
  return { kind: 'server', url, db, label: url.host };
}

/** `redis+sentinel://h:p[,h:p...]/name[/db]`: WHATWG URLs take one host, so this is split by hand. */
function parseSentinelUrl(text: string): ParsedRedisTarget {
  const [hostList = '', name = '', db, ...rest] = text.slice('redis+sentinel://'.length).split('/');
  if (name === '' || rest.length > 0 || (db !== undefined && db === '')) {
    throw badUrl(`expected redis+sentinel://host:port[,host:port...]/mastername[/db], got ${JSON.stringify(text)}`);
  }
  const sentinels = hostList.split(',').map((address) => sentinelAddressOf(address, text));
  return {
    kind: 'sentinel',
    sentinels,
    name: decodeURIComponent(name),
    db: db === undefined ? 0 : databaseOf(db, text),
    label: sentinelLabel(name, sentinels),
  };
}

function sentinelAddressOf(address: string, text: string): SentinelAddress {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(address);
  const port = Number(match?.[2]);
  if (match === null || port < 1 || port > 65_535) {
    throw badUrl(
      `a Sentinel's address must be host:port (port 1-65535), got ${JSON.stringify(address)} in ${JSON.stringify(text)}`,
    );
  }
  return { host: (match[1] as string).replace(/^\[(.*)\]$/, '$1'), port };
}

function sentinelTargetOf(target: SentinelTarget): ParsedRedisTarget {
  if (
    typeof target !== 'object' ||
    target === null ||
    !Array.isArray(target.sentinels) ||
    target.sentinels.length === 0
  ) {
    throw badUrl('expected a URL or { sentinels: [{ host, port }, ...], name }, with at least one Sentinel');
  }
  if (typeof target.name !== 'string' || target.name === '')
    throw badUrl(`expected the master group's name in { sentinels, name }, got ${JSON.stringify(target.name)}`);
  const sentinels = target.sentinels.map((s) => {
    if (typeof s?.host !== 'string' || s.host === '' || !Number.isInteger(s.port) || s.port < 1 || s.port > 65_535) {
      throw badUrl(`a Sentinel must be { host, port } with port 1-65535, got ${JSON.stringify(s)}`);
    }
    return { host: s.host, port: s.port };
  });
  const db = target.db ?? 0;
  if (!Number.isInteger(db) || db < 0)
    throw badUrl(`expected db to be a whole number >= 0, got ${JSON.stringify(target.db)}`);
  return { kind: 'sentinel', sentinels, name: target.name, db, label: sentinelLabel(target.name, sentinels) };
}

function sentinelLabel(name: string, sentinels: readonly SentinelAddress[]): string {
  return `master ${name} via Sentinels ${sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
}

function databaseOf(text: string, url: string): number {
  if (!/^\d{1,9}$/.test(text))
    throw badUrl(
      `the database (the URL's path) must be a whole number such as /0, got ${JSON.stringify(`/${text}`)} in ${JSON.stringify(url)}`,
    );
  return Number(text);
}

function badUrl(why: string): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `--redis: ${why}`, { field: 'redis' });
}
