import { serveCommand, type ServeOptions } from '../../src/cli/commands/serve.js';
import { bufferIO } from '../../src/report/io.js';

/** `ratelab serve` on a free loopback port, really listening; `stop()` aborts it and returns its exit code. */
export async function startServe(
  options: ServeOptions,
  io = bufferIO(),
): Promise<{ url: string; metricsUrl: string | undefined; io: typeof io; stop(): Promise<number> }> {
  const controller = new AbortController();
  let metricsUrl: string | undefined;
  let onListening!: (url: string, metrics?: string) => void;
  const listening = new Promise<string>(
    (resolve) =>
      (onListening = (url, metrics) => {
        metricsUrl = metrics;
        resolve(url);
      }),
  );
  const exit = serveCommand({ port: 0, ...options, signal: controller.signal, onListening }, io);
  const url = await Promise.race([
    listening,
    exit.then((code) => Promise.reject(new Error(`serve exited ${code}: ${io.err()}`))),
  ]);
  return {
    url,
    metricsUrl,
    io,
    stop: () => {
      controller.abort();
      return exit;
    },
  };
}
