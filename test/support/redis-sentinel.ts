/**
 * A master, a replica and three Sentinels watching them, all on free loopback ports, for
 * failover tests and benchmarks: `startSentinelGroup()` -> {@link SentinelGroup}. Each
 * Sentinel has a config file of its own in a temp dir; the down-after and failover
 * timeouts are low, so killing the master (SIGKILL) promotes the replica in a few seconds.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import {
  REPLICATE_AT_ONCE,
  startRedisSentinel,
  startRedisServer,
  waitReplicasInSync,
  type RedisServer,
} from './redis-server.js';

const run = promisify(execFile);

/** The master group's name the Sentinels monitor. */
export const MASTER_NAME = 'ratelab-master';

/** A replicated master watched by Sentinels. */
export interface SentinelGroup {
  readonly master: RedisServer;
  readonly replica: RedisServer;
  readonly sentinels: readonly RedisServer[];
  /** `redis+sentinel://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3/ratelab-master`. */
  readonly url: string;
  /** The address the Sentinels give for the master now (`SENTINEL GET-MASTER-ADDR-BY-NAME`), as the first one answering says. */
  masterPort(): Promise<number>;
  /** Resolves once every Sentinel names a master other than `oldPort` (after a failover), with its port. */
  waitPromoted(oldPort: number, timeoutMs?: number): Promise<number>;
  stop(): Promise<void>;
}

/** Options: ms before a silent master is down (default 1000), and the failover timeout (default 3000). */
export interface SentinelGroupOptions {
  downAfterMs?: number;
  failoverTimeoutMs?: number;
}

export async function startSentinelGroup(options: SentinelGroupOptions = {}): Promise<SentinelGroup> {
  const started: RedisServer[] = [];
  const stop = async () => {
    await Promise.all(started.map((server) => server.stop()));
  };
  try {
    const master = await startRedisServer(REPLICATE_AT_ONCE);
    started.push(master);
    const replica = await startRedisServer([...REPLICATE_AT_ONCE, '--replicaof', master.host, String(master.port)]);
    started.push(replica);
    await waitReplicasInSync([replica], 1);
    const config = [
      `sentinel monitor ${MASTER_NAME} ${master.host} ${master.port} 2`,
      `sentinel down-after-milliseconds ${MASTER_NAME} ${options.downAfterMs ?? 1000}`,
      `sentinel failover-timeout ${MASTER_NAME} ${options.failoverTimeoutMs ?? 3000}`,
      `sentinel parallel-syncs ${MASTER_NAME} 1`,
      '',
    ].join('\n');
    const sentinels: RedisServer[] = [];
    for (let i = 0; i < 3; i++) {
      const sentinel = await startRedisSentinel(config);
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    await waitAcquainted(sentinels);
    const ask = (sentinel: RedisServer) =>
      sentinelCli(sentinel, 'sentinel', 'get-master-addr-by-name', MASTER_NAME).then((out) =>
        Number(out.split('\n')[1]),
      );
    return {
      master,
      replica,
      sentinels,
      url: `redis+sentinel://${sentinels.map((s) => `${s.host}:${s.port}`).join(',')}/${MASTER_NAME}`,
      masterPort: () => ask(sentinels[0] as RedisServer),
      waitPromoted: async (oldPort, timeoutMs = 30_000) => {
        const deadline = Date.now() + timeoutMs;
        for (;;) {
          const ports = await Promise.all(sentinels.map(ask));
          if (ports.every((port) => port !== oldPort && port === ports[0])) return ports[0] as number;
          if (Date.now() > deadline)
            throw new Error(`no failover within ${timeoutMs} ms: the Sentinels name ${ports.join(', ')}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Waits until each Sentinel knows the replica and the two other Sentinels (they find each
 * other through the master's hello channel every 2 s): before that, a failover could not
 * be authorised by a majority, or would have no replica to promote.
 */
async function waitAcquainted(sentinels: readonly RedisServer[]): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const views = await Promise.all(
      sentinels.map(async (sentinel) => {
        const master = await sentinelCli(sentinel, 'sentinel', 'master', MASTER_NAME);
        return { replicas: field(master, 'num-slaves'), others: field(master, 'num-other-sentinels') };
      }),
    );
    if (views.every((view) => view.replicas >= 1 && view.others >= 2)) return;
    if (Date.now() > deadline) throw new Error(`Sentinels not acquainted after 20 s: ${JSON.stringify(views)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function field(reply: string, name: string): number {
  const lines = reply.split('\n');
  const at = lines.indexOf(name);
  return at === -1 ? 0 : Number(lines[at + 1]);
}

function sentinelCli(sentinel: RedisServer, ...args: string[]): Promise<string> {
  return run('redis-cli', ['-h', sentinel.host, '-p', String(sentinel.port), ...args]).then((r) => r.stdout.trim());
}
