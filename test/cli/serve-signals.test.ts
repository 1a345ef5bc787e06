import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { get } from '../http/support.js';

// The installed CLI (bin/ -> dist/, built by `npm ci` / `npm run build`) in a real process:
// bin/ is the only place that turns SIGINT/SIGTERM into a clean stop.
const BIN = fileURLToPath(new URL('../../bin/ratelab.js', import.meta.url));

describe('ratelab serve as a process', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('stops cleanly on %s, exit 0', async (signal) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--quiet'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8');
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: string) => {
        stderr += chunk;
        const match = /listening on (http:\/\/\S+) /.exec(stderr);
        if (match) resolve(match[1] as string);
      });
      child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    expect((await get(`${url}/`)).status).toBe(200);
    const exited = once(child, 'exit');
    child.kill(signal);
    const [code, bySignal] = await exited;
    expect([code, bySignal]).toEqual([0, null]);
    expect(stderr).toMatch(/ratelab serve: stopped\n$/);
  });
});
