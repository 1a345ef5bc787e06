// Starting the runtimes of the matrices (runtimes.test.ts, redis-runtimes.test.ts): a main
// module run by the binary its npm package ships (node_modules/.bin), which prints
// `{ port, runtime, version }` as its first line once it listens on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, where every runtime runs. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/** The path of a binary an npm package installed (`bun`, `deno`). */
export const bin = (name: string): string => join(root, 'node_modules/.bin', name);

/** A started runtime: where it listens, what it is, how to stop it. */
export interface Started {
  url: string;
  runtime: string;
  version: string;
  stop(): Promise<void>;
}

/** Spawns `command` (a main module printing `{ port, runtime, version }` once it listens) and waits for that line. */
export function startProcess(command: string, args: string[]): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => fail(new Error(`${command}: no port after 30 s; stderr: ${stderr}`)), 30_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.on('error', fail);
    child.on('exit', (code) => fail(new Error(`${command} exited (${code}) before listening; stderr: ${stderr}`)));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const line = stdout.split('\n')[0];
      if (!stdout.includes('\n') || line === undefined) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      const { port, runtime, version } = JSON.parse(line) as { port: number; runtime: string; version: string };
      resolve({
        url: `http://127.0.0.1:${port}/`,
        runtime,
        version,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
