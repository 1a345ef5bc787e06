/**
 * Real Redis servers for tests and benchmarks: each started on a free loopback port (never
 * 6379, which belongs to someone else), with no persistence, in a temporary directory, and
 * stopped afterwards (also when the process exits).
 *
 * API:
 * - `redisAvailable`: whether redis-server is on PATH (tests use `describeRedis` from
 *   ./describe-redis.ts, which skips or fails visibly when it is not).
 * - `startRedisServer()` -> {@link RedisServer}: `url`, `host`, `port`, `kill()` (SIGKILL,
 *   as a crash), `pause()` / `resume()` (SIGSTOP / SIGCONT: a hung server), `restart()`
 *   (same port, empty), `stop()`.
 * - `startRedisCluster(masters, { nodeTimeoutMs })` -> {@link RedisClusterHandle}: 3 masters
 *   with all 16384 slots assigned, `startupNodes` for `new Cluster(...)`, `stop()`.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HOST = '127.0.0.1';

/** Whether redis-server can be started here. */
export const redisAvailable = spawnSync('redis-server', ['--version']).status === 0;

/** A redis-server process of this test run. */
export interface RedisServer {
  readonly host: string;
  readonly port: number;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** SIGKILL, as a crash: clients see the connection drop. */
  kill(): Promise<void>;
  /** SIGSTOP: the server hangs, connections stay open and unanswered. */
  pause(): void;
  /** SIGCONT after {@link pause}. */
  resume(): void;
  /** Starts it again on the same port (empty: nothing is persisted). */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** Starts a redis-server on a free loopback port; `extraArgs` are added to its command line. */
export async function startRedisServer(extraArgs: readonly string[] = []): Promise<RedisServer> {
  const port = await freePort();
  return launch(port, extraArgs);
}

async function launch(port: number, extraArgs: readonly string[]): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ratelab-redis-'));
  const args = ['--port', String(port), '--bind', HOST, '--save', '', '--appendonly', 'no', '--dir', dir, '--daemonize', 'no', ...extraArgs];
  let child = await spawnReady(args);
  const server: RedisServer = {
    host: HOST,
    port,
    url: `redis://${HOST}:${port}`,
    kill: async () => {
      await terminate(child, 'SIGKILL');
    },
    pause: () => {
      child.kill('SIGSTOP');
    },
    resume: () => {
      child.kill('SIGCONT');
    },
    restart: async () => {
      await terminate(child, 'SIGKILL');
      child = await spawnReady(args);
    },
    stop: async () => {
      await terminate(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/** Spawns redis-server and resolves once it accepts connections. */
function spawnReady(args: readonly string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    running.add(child);
    let log = '';
    const timer = setTimeout(() => fail(new Error(`redis-server did not start within 10 s:\n${log}`)), 10_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    child.stdout?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Ready to accept connections')) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve(child);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk.toString();
    });
    child.once('error', fail);
    child.once('exit', (code) => {
      running.delete(child);
      fail(new Error(`redis-server exited with ${code}:\n${log}`));
    });
  });
}

function terminate(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  child.kill('SIGCONT'); // a paused server would not act on SIGTERM
  return new Promise((resolve) => {
    child.once('exit', () => {
      running.delete(child);
      resolve();
    });
    child.kill(signal);
  });
}

/**
 * A free loopback port below 55536 whose cluster bus port (port + 10000) is free too.
 * Never 6379: the listener asks the OS for an ephemeral port.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await listenOnce(0);
    if (port !== 6379 && port + 10_000 <= 65_535 && (await listenOnce(port + 10_000).then(() => true, () => false))) return port;
  }
}

function listenOnce(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, HOST, () => {
      const address = server.address();
      const bound = typeof address === 'object' && address !== null ? address.port : port;
      server.close(() => resolve(bound));
    });
  });
}

/** A Redis Cluster of this test run. */
export interface RedisClusterHandle {
  readonly nodes: readonly RedisServer[];
  /** For `new Cluster(startupNodes)`. */
  readonly startupNodes: ReadonlyArray<{ host: string; port: number }>;
  stop(): Promise<void>;
}

/**
 * Starts `masters` cluster-enabled servers, joins them (no replicas) and waits for
 * cluster_state:ok. `nodeTimeoutMs` (default 2000) is how long a silent master takes to be
 * marked failed, after which (with no replicas) every master answers CLUSTERDOWN.
 */
export async function startRedisCluster(masters = 3, options: { nodeTimeoutMs?: number } = {}): Promise<RedisClusterHandle> {
  const nodes: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    for (let i = 0; i < masters; i++) {
      nodes.push(await startRedisServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(options.nodeTimeoutMs ?? 2000)]));
    }
    const addresses = nodes.map((node) => `${node.host}:${node.port}`);
    await run('redis-cli', ['--cluster', 'create', ...addresses, '--cluster-replicas', '0', '--cluster-yes'], { timeout: 30_000 });
    await waitClusterOk(nodes);
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, startupNodes: nodes.map(({ host, port }) => ({ host, port })), stop };
}

async function waitClusterOk(nodes: readonly RedisServer[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const infos = await Promise.all(nodes.map((node) => run('redis-cli', ['-h', node.host, '-p', String(node.port), 'cluster', 'info']).then((r) => r.stdout)));
    if (infos.every((info) => info.includes('cluster_state:ok'))) return;
    if (Date.now() > deadline) throw new Error(`cluster not ok after 20 s:\n${infos.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
