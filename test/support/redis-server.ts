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
 * - `startRedisSentinel(config)`: a Sentinel with its own config file (see ./redis-sentinel.ts
 *   for a master, a replica and three Sentinels).
 * - `startRedisCluster(masters, { nodeTimeoutMs, replicas })` -> {@link RedisClusterHandle}:
 *   masters with all 16384 slots assigned (and `replicas` replicas each, in sync),
 *   `startupNodes` for `new Cluster(...)`, `stop()`.
 */
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
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
  return launch(port, [], extraArgs);
}

/**
 * Starts a Sentinel (`redis-server CONFIG --sentinel`) on a free loopback port, with
 * `config` as its own config file in its own directory (a Sentinel rewrites its file).
 */
export async function startRedisSentinel(config: string): Promise<RedisServer> {
  const port = await freePort();
  return launch(
    port,
    (dir) => {
      const file = join(dir, 'sentinel.conf');
      writeFileSync(file, config);
      return [file, '--sentinel'];
    },
    [],
    SENTINEL_READY,
  );
}

async function launch(
  port: number,
  before: readonly string[] | ((dir: string) => string[]),
  extraArgs: readonly string[],
  ready = READY,
): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'ratelab-redis-'));
  const first = typeof before === 'function' ? before(dir) : before;
  const args = [
    ...first,
    '--port',
    String(port),
    '--bind',
    HOST,
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    ...extraArgs,
  ];
  let child = await spawnReady(args, ready);
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
      child = await spawnReady(args, ready);
    },
    stop: async () => {
      await terminate(child, 'SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return server;
}

/** What a server logs once it accepts connections; a Sentinel logs its id once it listens (and no such line). */
const READY = 'Ready to accept connections';
const SENTINEL_READY = '# Sentinel ID is';

/** Spawns redis-server and resolves once its log says `ready`. */
function spawnReady(args: readonly string[], ready: string): Promise<ChildProcess> {
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
      if (log.includes(ready)) {
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
    if (
      port !== 6379 &&
      port + 10_000 <= 65_535 &&
      (await listenOnce(port + 10_000).then(
        () => true,
        () => false,
      ))
    )
      return port;
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
 * Starts `masters` cluster-enabled servers, and `replicas` replicas of each, joins them and
 * waits for cluster_state:ok (and, with replicas, every replica in sync). `nodeTimeoutMs`
 * (default 2000) is how long a silent master takes to be marked failed, after which its
 * replica is promoted, or (with no replicas) every master answers CLUSTERDOWN.
 */
export async function startRedisCluster(
  masters = 3,
  options: { nodeTimeoutMs?: number; replicas?: number } = {},
): Promise<RedisClusterHandle> {
  const nodes: RedisServer[] = [];
  const replicas = options.replicas ?? 0;
  const stop = async () => {
    await Promise.all(nodes.map((node) => node.stop()));
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      nodes.push(
        await startRedisServer([
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          String(options.nodeTimeoutMs ?? 2000),
          ...REPLICATE_AT_ONCE,
        ]),
      );
    }
    const addresses = nodes.map((node) => `${node.host}:${node.port}`);
    await run(
      'redis-cli',
      ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'],
      { timeout: 30_000 },
    );
    await waitClusterOk(nodes);
    if (replicas > 0) await waitReplicasInSync(nodes, masters * replicas);
  } catch (error) {
    await stop();
    throw error;
  }
  return { nodes, startupNodes: nodes.map(({ host, port }) => ({ host, port })), stop };
}

/** A replica's first sync starts at once (the default waits 5 s for more replicas to join one transfer). */
export const REPLICATE_AT_ONCE = ['--repl-diskless-sync-delay', '0'];

/** Resolves once `count` of `servers` are replicas whose link to their master is up. */
export async function waitReplicasInSync(servers: readonly RedisServer[], count: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const infos = await Promise.all(
      servers.map((node) =>
        run('redis-cli', ['-h', node.host, '-p', String(node.port), 'info', 'replication']).then((r) => r.stdout),
      ),
    );
    if (infos.filter((info) => info.includes('role:slave') && info.includes('master_link_status:up')).length >= count)
      return;
    if (Date.now() > deadline) throw new Error(`replicas not in sync after 20 s:\n${infos.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitClusterOk(nodes: readonly RedisServer[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const infos = await Promise.all(
      nodes.map((node) =>
        run('redis-cli', ['-h', node.host, '-p', String(node.port), 'cluster', 'info']).then((r) => r.stdout),
      ),
    );
    if (infos.every((info) => info.includes('cluster_state:ok'))) return;
    if (Date.now() > deadline) throw new Error(`cluster not ok after 20 s:\n${infos.join('\n')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
