import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RatelabError } from '../../core/errors.js';
import type { Command } from '../../report/io.js';
import { playgroundHtml } from '../../report/html/playground-html.js';
import { EXIT } from '../exit-codes.js';
import { portFlag } from '../flags.js';
import { checkOutputs, writeFormats, type OutputTargets } from '../outputs.js';

/** The file `ratelab playground` writes when neither --html nor --serve is given. */
export const DEFAULT_PLAYGROUND_FILE = 'ratelab-playground.html';

/** Options of `ratelab playground`. */
export interface PlaygroundOptions extends OutputTargets<'html'> {
  /** Serve the page on a loopback port (127.0.0.1) until the signal aborts (Ctrl-C). */
  serve?: boolean;
  /** With --serve: the port (default 0, any free port). */
  port?: string | number;
  /** Stops the server; the command resolves once it has closed. */
  signal?: AbortSignal;
  /** Told the page's URL once the server listens (tests). */
  onListening?: (url: string) => void;
}

/**
 * `ratelab playground`: writes the self-contained playground page (the five limiters and the
 * exact oracle running in the browser, docs/lab.md) to `--html FILE` (default
 * ratelab-playground.html; `-`: stdout), or with `--serve` serves it on 127.0.0.1 and prints
 * the URL (also writing `--html` when given) until interrupted.
 */
export const playgroundCommand: Command<PlaygroundOptions> = async (options, io) => {
  const port = portFlag(options.port ?? 0);
  if (options.port !== undefined && options.serve !== true)
    throw new RatelabError('INVALID_ARGUMENT', '--port: only with --serve', { field: '--port' });
  const targets: OutputTargets<'html'> =
    options.html === undefined && options.serve !== true ? { html: DEFAULT_PLAYGROUND_FILE } : { html: options.html };
  checkOutputs(targets, io.cwd);
  const page = playgroundHtml();
  await writeFormats(targets, { html: () => page }, io);
  const written =
    targets.html === undefined || targets.html === true || targets.html === '-' ? undefined : targets.html;
  if (written !== undefined)
    io.stderr.write(
      `ratelab playground: wrote ${written} (${Math.ceil(page.length / 1024)} KB): open it in a browser\n`,
    );
  if (options.serve !== true) return EXIT.OK;
  const server = createServer((request, response) => {
    if (request.method !== 'GET' || (request.url !== '/' && request.url !== '/index.html')) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the playground is at /\n');
      return;
    }
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(page);
  });
  const url = await listen(server, port);
  io.stdout.write(`${url}/\n`);
  io.stderr.write('ratelab playground: serving on loopback; stop with Ctrl-C\n');
  options.onListening?.(`${url}/`);
  const signal = options.signal ?? io.interrupts?.();
  if (signal && !signal.aborted) await once(signal, 'abort');
  else if (!signal) await new Promise<never>(() => {});
  const closed = once(server, 'close');
  server.close();
  server.closeAllConnections();
  await closed;
  return EXIT.OK;
};

async function listen(server: Server, port: number): Promise<string> {
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    const why = code === 'EADDRINUSE' ? 'the port is in use (pick another with --port)' : code;
    throw new RatelabError('LISTEN_FAILED', `cannot listen on 127.0.0.1:${port}: ${why}`, {
      field: '--port',
      cause: error,
    });
  }
  const address = server.address() as AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}
