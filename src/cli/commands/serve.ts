import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type * as PromClient from 'prom-client';
import type { AddressInfo, Socket } from 'node:net';
import { resolve } from 'node:path';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { RatelabError } from '../../core/errors.js';
import { createDemoApi, isMetricsRequest, METRICS_PATH, type DemoRequestLog } from '../../attack/demo-api.js';
import type { ShadowHeaders } from '../../http/middleware.js';
import { requireOptional } from '../../core/optional-dependency.js';
import { registerMetrics } from '../../observability/prometheus.js';
import { retryAfterSeconds } from '../../http/headers.js';
import type { ClockSource } from '../../core/clock.js';
import { createLimiter, type RateLimiter } from '../../memory/limiter.js';
import { checkAlgorithm } from '../../core/names.js';
import { painter } from '../../report/text/color.js';
import { loadTiers } from '../../tiers/load-tiers.js';
import { RateLimiterRegistry } from '../../tiers/registry.js';
import { EXIT } from '../exit-codes.js';
import { portFlag, trustProxyFlag, wholeNumberFlag } from '../flags.js';
import { SERVE_DEFAULTS } from '../defaults.js';
import type { Command, CommandIO } from '../../report/io.js';

/** Options of `ratelab serve`. */
export interface ServeOptions {
  /** A tiers file (clients pick their tier with X-API-Key); excludes algorithm/limit/window/burst. */
  tiers?: string;
  port?: string | number;
  host?: string;
  algorithm?: string;
  limit?: string | number;
  window?: string;
  burst?: string | number;
  /** Hops or proxy addresses to trust for X-Forwarded-For (see TrustProxy). */
  trustProxy?: string;
  /** Every X-API-Key is a client of its own, not only the tiers file's (for `attack` with many keys). */
  trustApiKeys?: boolean;
  /** No per-request log lines even on a terminal. */
  quiet?: boolean;
  /** Log every request, even when stdout is not a terminal. */
  log?: boolean;
  /** Expose `/metrics` (Prometheus text) on the same port. */
  metrics?: boolean;
  /** Expose `/metrics` on this port instead (implies `metrics`). */
  metricsPort?: string | number;
  /** The rate-limit fields of tiers in shadow: `none` (default) or `as-enforced`. */
  shadowHeaders?: string;
  /** Stops the server; the command resolves once it has closed. */
  signal?: AbortSignal;
  /** Told the server's URL once it listens (tests use port 0), and the metrics' URL with --metrics. */
  onListening?: (url: string, metricsUrl?: string) => void;
  /** The limiters' clock (default: the system clock); tests pass a ManualClock. */
  clock?: ClockSource;
}

/**
 * `ratelab serve`: a demo API behind the rate-limit middleware until the signal aborts.
 * Throws `LISTEN_FAILED` when the address cannot be bound.
 */
export const serveCommand: Command<ServeOptions> = async (options, io) => {
  const shadowHeaders = shadowHeadersFlag(options.shadowHeaders);
  const host = options.host ?? SERVE_DEFAULTS.host;
  const port = portFlag(options.port ?? SERVE_DEFAULTS.port);
  const metricsPort = options.metricsPort === undefined ? undefined : portFlag(options.metricsPort, '--metrics-port');
  const limits = options.tiers === undefined ? singleLimiter(options) : tiersRegistry(options.tiers, options, io);
  const metrics = options.metrics === true || metricsPort !== undefined ? serveMetrics(limits) : undefined;
  const log = requestLogger(options, io);
  const server = createDemoApi({
    ...limits,
    trustProxy: trustProxyFlag(options.trustProxy),
    trustApiKeys: options.trustApiKeys === true,
    ...(log ? { onRequest: log } : {}),
    ...(metrics && metricsPort === undefined ? { metrics } : {}),
    ...(shadowHeaders ? { shadowHeaders } : {}),
  });
  const servers = [server];
  if (metrics && metricsPort !== undefined) servers.push(metricsServer(metrics));
  const connections = servers.map(openConnections);
  const url = await listen(server, port, host, '--port');
  let metricsUrl: string | undefined;
  try {
    if (metrics)
      metricsUrl = `${metricsPort === undefined ? url : await listen(servers[1] as Server, metricsPort, host, '--metrics-port')}${METRICS_PATH}`;
  } catch (error) {
    server.close();
    throw error;
  }
  io.stderr.write(
    `ratelab serve: listening on ${url} (${describe(limits)}); try: curl -i ${url}/ -H 'X-API-Key: alice'\n`,
  );
  if (metricsUrl) io.stderr.write(`ratelab serve: metrics on ${metricsUrl}\n`);
  options.onListening?.(url, metricsUrl);
  await Promise.all(servers.map((each, i) => stopped(each, connections[i] as Set<Socket>, options.signal, io)));
  io.stderr.write('ratelab serve: stopped\n');
  return EXIT.OK;
};

function shadowHeadersFlag(value: string | undefined): ShadowHeaders | undefined {
  if (value === undefined || value === 'none' || value === 'as-enforced') return value;
  throw new RatelabError(
    'INVALID_ARGUMENT',
    `--shadow-headers: expected none or as-enforced, got ${JSON.stringify(value)}`,
    {
      field: '--shadow-headers',
    },
  );
}

/**
 * The Prometheus text of every limiting tier's decisions (`ratelab_decisions_total{limiter="serve",
 * tier, outcome}` and the rest of ratelab/metrics' series; an unlimited tier has no limiter
 * to count), as a handler of `GET /metrics`. prom-client is loaded now: without it,
 * `MISSING_DEPENDENCY` before anything listens.
 */
function serveMetrics(limits: { limiter: RateLimiter } | { registry: RateLimiterRegistry }) {
  const prom = requireOptional<typeof PromClient>('prom-client', 'for serve --metrics', '--metrics');
  const registry = new prom.Registry();
  const limiters =
    'limiter' in limits
      ? [limits.limiter]
      : limits.registry.tiers.flatMap((tier) => {
          const limiter = limits.registry.limiterOf(tier);
          return limiter === 'unlimited' ? [] : [limiter];
        });
  for (const limiter of limiters) registerMetrics(limiter, { registry, name: SERVE_METRICS_NAME });
  return (req: IncomingMessage, res: ServerResponse): void => {
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Content-Length': Buffer.byteLength(text) });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end(`metrics failed: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  };
}

/** The `limiter` label of serve's series (the `tier` label is the tier's name, `default` without --tiers). */
export const SERVE_METRICS_NAME = 'serve';

/** The server of --metrics-port: `/metrics`, and 404 for anything else. */
function metricsServer(metrics: (req: IncomingMessage, res: ServerResponse) => void): Server {
  return createServer((req, res) => {
    if (isMetricsRequest(req)) {
      metrics(req, res);
      return;
    }
    res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(`not found: metrics are at ${METRICS_PATH}\n`);
  });
}

function singleLimiter(options: ServeOptions): { limiter: RateLimiter } {
  const algorithm = checkAlgorithm(options.algorithm ?? SERVE_DEFAULTS.algorithm, '--algorithm');
  const limit = wholeNumberFlag(options.limit ?? SERVE_DEFAULTS.limit, '--limit', 1);
  const windowMs = parseDuration(options.window ?? SERVE_DEFAULTS.window, '--window');
  const burst = options.burst === undefined ? undefined : wholeNumberFlag(options.burst, '--burst', 1);
  return {
    limiter: createLimiter(algorithm, burst === undefined ? { limit, windowMs } : { limit, windowMs, burst }, {
      ...clockOption(options),
      // The policy name of its headers: the `tier` label of its metrics.
      name: 'default',
    }),
  };
}

function tiersRegistry(tiers: string, options: ServeOptions, io: CommandIO): { registry: RateLimiterRegistry } {
  const clash = (['algorithm', 'limit', 'window', 'burst'] as const).find((flag) => options[flag] !== undefined);
  if (clash)
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `--${clash}: not with --tiers (the tiers file sets each tier's policy)`,
      { field: `--${clash}` },
    );
  return { registry: new RateLimiterRegistry(loadTiers(resolve(io.cwd, tiers), tiers), clockOption(options)) };
}

function clockOption(options: ServeOptions): { clock?: ClockSource } {
  return options.clock === undefined ? {} : { clock: options.clock };
}

function describe(limits: { limiter: RateLimiter } | { registry: RateLimiterRegistry }): string {
  if ('registry' in limits) return `tiers: ${limits.registry.tiers.join(', ')}`;
  const { algorithm, limits: l } = limits.limiter;
  return `${algorithm}, ${l.limit} per ${formatDuration(l.windowMs)}${l.capacity === l.limit ? '' : `, burst ${l.capacity}`}`;
}

async function listen(server: Server, port: number, host: string, flag: string): Promise<string> {
  try {
    server.listen(port, host);
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const why = code === 'EADDRINUSE' ? `the port is in use (pick another with ${flag})` : code;
    throw new RatelabError('LISTEN_FAILED', `cannot listen on ${host}:${port}: ${why}`, {
      field: flag,
      cause: error,
    });
  }
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${shownHost}:${address.port}`;
}

/**
 * How long a stop waits for open requests to finish before it closes their connections:
 * a client that sends half a request (or never reads its answer) would hold it forever.
 */
const SHUTDOWN_GRACE_MS = 2000;

/** The server's open sockets, kept up to date from now on. */
function openConnections(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return sockets;
}

/**
 * Resolves once `signal` aborts and the server has closed its connections: idle ones at
 * once, those still busy after {@link SHUTDOWN_GRACE_MS} by force (said on stderr).
 */
async function stopped(
  server: Server,
  connections: Set<Socket>,
  signal: AbortSignal | undefined,
  io: CommandIO,
): Promise<void> {
  if (signal && !signal.aborted) await once(signal, 'abort');
  else if (!signal) await new Promise<never>(() => {});
  const closed = once(server, 'close');
  server.close();
  // Keep-alive connections would hold close() open; in-flight requests finish first.
  server.closeIdleConnections();
  const grace = setTimeout(() => {
    const count = connections.size;
    io.stderr.write(
      `ratelab serve: closed ${count} stalled connection${count === 1 ? '' : 's'} after the ${SHUTDOWN_GRACE_MS / 1000} s grace period\n`,
    );
    for (const socket of connections) socket.destroy();
  }, SHUTDOWN_GRACE_MS);
  await closed;
  clearTimeout(grace);
}

/** One line per finished request, when someone is watching (or --log). */
function requestLogger(options: ServeOptions, io: CommandIO): ((entry: DemoRequestLog) => void) | undefined {
  if (options.quiet || !(options.log || io.stdout.isTTY)) return undefined;
  const paint = painter(io);
  return (entry) => {
    const status =
      entry.status === 200
        ? paint.green(entry.status)
        : entry.status === 429
          ? paint.yellow(entry.status)
          : paint.red(entry.status);
    const decision = entry.result?.decision;
    const parts = [
      new Date().toISOString().slice(11, 23),
      entry.address ?? '-',
      entry.method,
      entry.path,
      status,
      entry.result?.policy ?? '-',
    ];
    if (decision && Number.isFinite(decision.limit))
      parts.push(`remaining=${Math.floor(decision.remaining)}/${decision.limit}`);
    if (decision && !decision.allowed) parts.push(`retry-after=${retryAfterSeconds(decision.retryAfterMs) ?? 'never'}`);
    if (entry.result && entry.result.outcome.startsWith('failed')) parts.push(entry.result.outcome);
    parts.push(`${entry.durationMs.toFixed(1)}ms`);
    io.stdout.write(`${parts.join(' ')}\n`);
  };
}
