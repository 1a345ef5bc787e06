import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { resolve } from 'node:path';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { RatelabError } from '../../core/errors.js';
import { createDemoApi, type DemoRequestLog } from '../../attack/demo-api.js';
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
  /** Stops the server; the command resolves once it has closed. */
  signal?: AbortSignal;
  /** Told the server's URL once it listens (tests use port 0). */
  onListening?: (url: string) => void;
  /** The limiters' clock (default: the system clock); tests pass a ManualClock. */
  clock?: ClockSource;
}

/**
 * `ratelab serve`: a demo API behind the rate-limit middleware until the signal aborts.
 * Throws `LISTEN_FAILED` when the address cannot be bound.
 */
export const serveCommand: Command<ServeOptions> = async (options, io) => {
  const limits = options.tiers === undefined ? singleLimiter(options) : tiersRegistry(options.tiers, options, io);
  const log = requestLogger(options, io);
  const server = createDemoApi({
    ...limits,
    trustProxy: trustProxyFlag(options.trustProxy),
    trustApiKeys: options.trustApiKeys === true,
    ...(log ? { onRequest: log } : {}),
  });
  const connections = openConnections(server);
  const url = await listen(server, portFlag(options.port ?? SERVE_DEFAULTS.port), options.host ?? SERVE_DEFAULTS.host);
  io.stderr.write(
    `ratelab serve: listening on ${url} (${describe(limits)}); try: curl -i ${url}/ -H 'X-API-Key: alice'\n`,
  );
  options.onListening?.(url);
  await stopped(server, connections, options.signal, io);
  io.stderr.write('ratelab serve: stopped\n');
  return EXIT.OK;
};

function singleLimiter(options: ServeOptions): { limiter: RateLimiter } {
  const algorithm = checkAlgorithm(options.algorithm ?? SERVE_DEFAULTS.algorithm, '--algorithm');
  const limit = wholeNumberFlag(options.limit ?? SERVE_DEFAULTS.limit, '--limit', 1);
  const windowMs = parseDuration(options.window ?? SERVE_DEFAULTS.window, '--window');
  const burst = options.burst === undefined ? undefined : wholeNumberFlag(options.burst, '--burst', 1);
  return {
    limiter: createLimiter(
      algorithm,
      burst === undefined ? { limit, windowMs } : { limit, windowMs, burst },
      clockOption(options),
    ),
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

async function listen(server: Server, port: number, host: string): Promise<string> {
  try {
    server.listen(port, host);
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const why = code === 'EADDRINUSE' ? 'the port is in use (pick another with --port)' : code;
    throw new RatelabError('LISTEN_FAILED', `cannot listen on ${host}:${port}: ${why}`, {
      field: '--port',
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
