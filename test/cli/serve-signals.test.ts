import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { get } from '../http/support.js';

// The installed CLI (bin/ -> dist/, built by `npm ci` / `npm run build`) in a real process:
// bin/ is the only place that turns SIGINT/SIGTERM into a clean stop.
const BIN = fileURLToPath(new URL('../../bin/ratelab.js', import.meta.url));

/** `ratelab serve --port 0` in a child process, once it listens. */
async function startServeProcess() {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stderr: '' };
  child.stderr.setEncoding('utf8');
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: string) => {
      output.stderr += chunk;
      const match = /listening on (http:\/\/\S+) /.exec(output.stderr);
      if (match) resolve(match[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${output.stderr}`)));
  });
  return { child, url, output };
}

describe('ratelab serve as a process', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('stops cleanly on %s, exit 0', async (signal) => {
    const { child, url, output } = await startServeProcess();
    expect((await get(`${url}/`)).status).toBe(200);
    const exited = once(child, 'exit');
    child.kill(signal);
    const [code, bySignal] = await exited;
    expect([code, bySignal]).toEqual([0, null]);
    expect(output.stderr).toMatch(/ratelab serve: stopped\n$/);
  });

  it('stops on SIGINT while a client holds a half-sent request: the stalled connection is closed after the grace period', async () => {
    const { child, url, output } = await startServeProcess();
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    socket.write('GET / HTTP/1.1\r\nHost: ratelab\r\n'); // the blank line that ends the headers never comes
    const socketClosed = once(socket, 'close');
    // The request has reached the server once it answers another client.
    expect((await get(`${url}/`)).status).toBe(200);
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const [code, bySignal] = await exited;
    await socketClosed;
    expect([code, bySignal]).toEqual([0, null]);
    expect(output.stderr).toMatch(/closed 1 stalled connection after the 2 s grace period\nratelab serve: stopped\n$/);
  }, 20_000);
});
