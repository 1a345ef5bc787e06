import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Something that listens like an Express app. */
interface Listener {
  listen(port: number, host: string): Server;
}

/** Starts `app` on 127.0.0.1 on a free port; resolves with its origin and a `close` that resolves once it has closed. */
export async function listenOnLoopback(app: Listener): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
