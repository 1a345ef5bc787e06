import { request, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A response as the client saw it. */
export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Starts `server` (or a node:http server around `listener`) on a free loopback port. */
export async function listen(target: RequestListener | Server): Promise<{ url: string; close(): Promise<void> }> {
  const server = typeof target === 'function' ? createServer(target) : target;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A GET with node's own HTTP client; `from` picks the client's loopback source address
 * (any of 127.0.0.0/8), so tests can be several clients without any proxy.
 */
export function get(url: string, options: { headers?: Record<string, string>; from?: string } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: options.headers, localAddress: options.from, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** `count` GETs one after another. */
export async function getMany(url: string, count: number, options: Parameters<typeof get>[1] = {}): Promise<Reply[]> {
  const replies: Reply[] = [];
  for (let i = 0; i < count; i++) replies.push(await get(url, options));
  return replies;
}
