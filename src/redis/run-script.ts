import { performance } from 'node:perf_hooks';
import { hashSlot } from './hash-slot.js';
import type { RedisKey } from './redis-key.js';
import type { LuaScript } from './scripts.js';

/**
 * The ioredis commands ratelab sends, as a structural type: an ioredis `Redis` or `Cluster`
 * client fits it, and ratelab's declarations need no ioredis types.
 */
export interface IoredisClient {
  /** EVALSHA: runs a cached script by its SHA-1; rejects with a `NOSCRIPT` error when not cached. */
  evalsha(sha: string, numKeys: number, ...keysAndArgs: (RedisKey | number)[]): Promise<unknown>;
  /** EVAL: runs (and caches) a script's source. */
  eval(script: string, numKeys: number, ...keysAndArgs: (RedisKey | number)[]): Promise<unknown>;
  /** DEL: deletes keys, resolving with how many existed. */
  del(...keys: RedisKey[]): Promise<unknown>;
}

/** Keys and arguments of a node-redis script call. */
export interface NodeRedisScriptOptions {
  keys: RedisKey[];
  arguments: string[];
}

/**
 * The node-redis v5 commands ratelab sends (`createClient()` or `createCluster()`), as a
 * structural type: no node-redis types are needed to type check ratelab.
 */
export interface NodeRedisClient {
  evalSha(sha: string, options: NodeRedisScriptOptions): Promise<unknown>;
  eval(script: string, options: NodeRedisScriptOptions): Promise<unknown>;
  del(keys: RedisKey | RedisKey[]): Promise<unknown>;
}

/** Any client ratelab accepts: ioredis (`Redis`, `Cluster`) or node-redis v5 (`createClient`, `createCluster`). */
export type RedisClient = IoredisClient | NodeRedisClient;

/**
 * One small interface over both clients: run a script (EVALSHA, then EVAL on NOSCRIPT),
 * delete a key, and say where a key lives (its hash slot and the node serving it on a
 * Cluster), which batching and the per-node breakers need.
 */
export interface ScriptClient {
  /** Whether keys of different hash slots must go in different script calls. */
  readonly cluster: boolean;
  run(script: LuaScript, keys: readonly RedisKey[], args: readonly string[]): Promise<unknown>;
  /** DEL of one key, or of several (of one hash slot on a Cluster), resolving with how many existed. */
  del(key: RedisKey | readonly RedisKey[]): Promise<unknown>;
  /** The batch a key may share: its hash slot on a Cluster, 0 otherwise. */
  slotOf(key: RedisKey): number;
  /** The node serving `slot` ("host:port"), as far as the client's slot table knows. */
  nodeOf(slot: number): string;
  /**
   * A call to `node` failed: on a Cluster, have the client re-read its slot table (at most
   * one re-read at a time, and one per {@link SLOT_REFRESH_MS}), so that once a replica is
   * promoted its master's keys go to it. Nothing on a single server (or Sentinel) client.
   */
  nodeFailed(node: string): void;
}

/** The least time between two slot table re-reads a failing node asks for, ms. */
export const SLOT_REFRESH_MS = 100;

const adapters = new WeakMap<object, ScriptClient>();

/** The {@link ScriptClient} of `client` (made once per client; the client is used as it is, never modified). */
export function scriptClient(client: RedisClient): ScriptClient {
  let adapter = adapters.get(client);
  if (adapter === undefined) {
    adapter = scriptAdapter(client);
    adapters.set(client, adapter);
  }
  return adapter;
}

/** Whether `client` looks like one ratelab can drive. */
export function isRedisClient(client: unknown): client is RedisClient {
  if (typeof client !== 'object' || client === null) return false;
  const c = client as Record<string, unknown>;
  return typeof c.eval === 'function' && (typeof c.evalsha === 'function' || typeof c.evalSha === 'function');
}

function isNodeRedis(client: RedisClient): client is NodeRedisClient {
  return typeof (client as Partial<IoredisClient>).evalsha !== 'function';
}

/**
 * Scripts are not registered on the client with defineCommand, so a client the user hands
 * in is used as it is; NOSCRIPT (after a restart, a failover to a replica that never saw
 * the script, SCRIPT FLUSH) falls back to EVAL, which also caches it ({@link sendScript}).
 */
function scriptAdapter(client: RedisClient): ScriptClient {
  const send = senderOf(client);
  return {
    ...router(client),
    run: (script, keys, args) => sendScript(send, script, keys, args),
    del: (key) => {
      if (!Array.isArray(key)) return client.del(key as RedisKey);
      const keys = key as readonly RedisKey[];
      return isNodeRedis(client) ? client.del([...keys]) : client.del(...keys);
    },
  };
}

/**
 * Sends `script` by EVALSHA and, when the server does not hold it (NOSCRIPT), by EVAL.
 * `each` wraps every attempt's reply (the WAIT of {@link acknowledgedScriptClient}).
 */
function sendScript(
  send: ScriptSender,
  script: LuaScript,
  keys: readonly RedisKey[],
  args: readonly string[],
  each?: (reply: Promise<unknown>) => Promise<unknown>,
): Promise<unknown> {
  const first = send.evalsha(script, keys, args);
  return (each === undefined ? first : each(first)).catch((error: unknown) => {
    if (!isNoScript(error)) throw error;
    const second = send.eval(script, keys, args);
    return each === undefined ? second : each(second);
  });
}

/**
 * Cluster clients of both libraries expose their slot table as `slots`: ioredis an array of
 * `["host:port", ...replicas]` per slot, node-redis `{ master: { address } }` per slot.
 * A slot the table does not know yet gets its own breaker name, which is still isolated.
 */
function router(client: object): Pick<ScriptClient, 'cluster' | 'slotOf' | 'nodeOf' | 'nodeFailed'> {
  const table = (client as { slots?: unknown }).slots;
  if (!Array.isArray(table))
    return { cluster: false, slotOf: () => 0, nodeOf: () => 'server', nodeFailed: () => undefined };
  return {
    cluster: true,
    slotOf: hashSlot,
    nodeFailed: slotRefresher(client),
    nodeOf: (slot) => {
      const entry = ((client as { slots: unknown[] }).slots[slot] ?? undefined) as unknown;
      if (Array.isArray(entry) && typeof entry[0] === 'string') return entry[0];
      const address = (entry as { master?: { address?: unknown } } | undefined)?.master?.address;
      return typeof address === 'string' ? address : `slot ${slot}`;
    },
  };
}

/** The structural parts of the two Cluster clients that re-read the slot table. */
interface RefreshableCluster {
  /** ioredis `Cluster`: re-reads the slot table from a node it knows. */
  refreshSlotsCache?: (callback?: (error?: unknown) => void) => void;
  /** node-redis `createCluster()`: its slot table, re-read through the node client given. */
  _slots?: { rediscover?: (startWith: unknown) => Promise<unknown> };
  masters?: ReadonlyArray<{ address?: string; client?: { isReady?: boolean } }>;
}

/**
 * Slot table re-reads after a node failed. ioredis refreshes its table on errors and every
 * 5 s by itself; asking at once only shortens that. node-redis re-reads it only on a MOVED
 * or ASK reply, which a dead master never sends (node-redis #2806), so without this its
 * keys would stay on the dead master, in the fail mode, until the process made a new
 * client; it is asked to re-read through a master that is still connected.
 */
function slotRefresher(client: object): (node: string) => void {
  const cluster = client as RefreshableCluster;
  let running = false;
  let last = -Infinity;
  const done = () => {
    running = false;
  };
  return (node) => {
    const now = performance.now();
    if (running || now - last < SLOT_REFRESH_MS) return;
    last = now;
    if (typeof cluster.refreshSlotsCache === 'function') {
      running = true;
      cluster.refreshSlotsCache(done);
      return;
    }
    const live = cluster.masters?.find((master) => master.address !== node && master.client?.isReady === true);
    if (typeof cluster._slots?.rediscover !== 'function' || live === undefined) return;
    running = true;
    cluster._slots.rediscover(live.client).then(done, done);
  };
}

/** WAIT after each script call: how many replicas must acknowledge its writes, within how many ms. */
export interface ReplicaWait {
  /** Replicas that must acknowledge (a whole number >= 1). */
  replicas: number;
  /** The most WAIT blocks, ms (a whole number >= 1: WAIT 0 would block for ever). */
  timeoutMs: number;
}

/** A script call whose admissions fewer than the wanted replicas acknowledged in time. */
export class UnreplicatedError extends Error {
  constructor(acknowledged: unknown, wait: ReplicaWait) {
    super(`WAIT: ${String(acknowledged)} of ${wait.replicas} replicas acknowledged within ${wait.timeoutMs} ms`);
    this.name = 'UnreplicatedError';
  }
}

/** The commands a script call sends, in either client's form (WAIT only for {@link acknowledgedScriptClient}). */
interface ScriptSender {
  evalsha(script: LuaScript, keys: readonly RedisKey[], args: readonly string[]): Promise<unknown>;
  eval(script: LuaScript, keys: readonly RedisKey[], args: readonly string[]): Promise<unknown>;
  wait(replicas: number, timeoutMs: number): Promise<unknown>;
}

/**
 * {@link scriptClient}, with each script call followed by `WAIT replicas timeoutMs` on the
 * same connection, sent right after the script without waiting for its reply (pipelined:
 * one round trip). WAIT cannot run inside a script, and it covers every write the
 * connection made before it. A call that admitted anything (a reply's first entry of four
 * is 1) while fewer replicas acknowledged rejects with {@link UnreplicatedError}, so its
 * decisions are the fail mode's: an admission that a failover could lose is never
 * reported as Redis's. Single servers and Sentinel clients only: on a Cluster a keyless
 * WAIT goes to any node, not to the key's master.
 */
export function acknowledgedScriptClient(client: RedisClient, wait: ReplicaWait): ScriptClient {
  const send = senderOf(client);
  return { ...scriptClient(client), run: (script, keys, args) => runAcknowledged(send, script, keys, args, wait) };
}

function runAcknowledged(
  send: ScriptSender,
  script: LuaScript,
  keys: readonly RedisKey[],
  args: readonly string[],
  wait: ReplicaWait,
): Promise<unknown> {
  const acknowledged = (reply: Promise<unknown>) => {
    const count = send.wait(wait.replicas, wait.timeoutMs);
    return reply.then(
      (value) =>
        count.then((replicas) => {
          if (Number(replicas) < wait.replicas && admits(value)) throw new UnreplicatedError(replicas, wait);
          return value;
        }),
      (error: unknown) => {
        count.catch(() => undefined);
        throw error;
      },
    );
  };
  return sendScript(send, script, keys, args, acknowledged);
}

/** Whether a script reply (4 entries per decision, `allowed` first) admitted anything. */
function admits(reply: unknown): boolean {
  if (!Array.isArray(reply)) return false;
  for (let i = 0; i < reply.length; i += 4) if (reply[i] === 1) return true;
  return false;
}

/** The script commands in `client`'s own form. */
function senderOf(client: RedisClient): ScriptSender {
  return isNodeRedis(client) ? nodeRedisSender(client) : ioredisSender(client);
}

function ioredisSender(client: IoredisClient): ScriptSender {
  const words = (keys: readonly RedisKey[], args: readonly string[]) =>
    keys.length === 1 ? [keys[0] as RedisKey, ...args] : [...keys, ...args];
  return {
    evalsha: (script, keys, args) => client.evalsha(script.sha, keys.length, ...words(keys, args)),
    eval: (script, keys, args) => client.eval(script.source, keys.length, ...words(keys, args)),
    wait: (replicas, timeoutMs) => waitOf(client)(replicas, timeoutMs),
  };
}

function nodeRedisSender(client: NodeRedisClient): ScriptSender {
  const options = (keys: readonly RedisKey[], args: readonly string[]) => ({
    keys: keys as RedisKey[],
    arguments: args as string[],
  });
  return {
    evalsha: (script, keys, args) => client.evalSha(script.sha, options(keys, args)),
    eval: (script, keys, args) => client.eval(script.source, options(keys, args)),
    wait: (replicas, timeoutMs) => waitOf(client)(replicas, timeoutMs),
  };
}

/** The client's WAIT command (`wait(numreplicas, timeout)` in both libraries). */
function waitOf(client: RedisClient): (replicas: number, timeoutMs: number) => Promise<unknown> {
  const wait = (client as { wait?: (replicas: number, timeoutMs: number) => Promise<unknown> }).wait;
  if (typeof wait !== 'function') return () => Promise.reject(new Error('this Redis client has no WAIT command'));
  return (replicas, timeoutMs) => wait.call(client, replicas, timeoutMs);
}

/** Runs `script` once over `keys` (one hash slot on a Cluster) through either client. */
export function runScript(
  client: RedisClient,
  script: LuaScript,
  keys: readonly RedisKey[],
  args: readonly (string | number)[],
): Promise<unknown> {
  return scriptClient(client).run(script, keys, args.map(String));
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
