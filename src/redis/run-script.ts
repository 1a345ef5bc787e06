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
  del(key: RedisKey): Promise<unknown>;
  /** The batch a key may share: its hash slot on a Cluster, 0 otherwise. */
  slotOf(key: RedisKey): number;
  /** The node serving `slot` ("host:port"), as far as the client's slot table knows. */
  nodeOf(slot: number): string;
}

const adapters = new WeakMap<object, ScriptClient>();

/** The {@link ScriptClient} of `client` (made once per client; the client is used as it is, never modified). */
export function scriptClient(client: RedisClient): ScriptClient {
  let adapter = adapters.get(client);
  if (adapter === undefined) {
    adapter = isNodeRedis(client) ? nodeRedisAdapter(client) : ioredisAdapter(client);
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
 * the script, SCRIPT FLUSH) falls back to EVAL, which also caches it.
 */
function ioredisAdapter(client: IoredisClient): ScriptClient {
  const route = router(client);
  return {
    ...route,
    run: (script, keys, args) => {
      const words = keys.length === 1 ? [keys[0] as RedisKey, ...args] : [...keys, ...args];
      return client.evalsha(script.sha, keys.length, ...words).catch((error: unknown) => {
        if (!isNoScript(error)) throw error;
        return client.eval(script.source, keys.length, ...words);
      });
    },
    del: (key) => client.del(key),
  };
}

function nodeRedisAdapter(client: NodeRedisClient): ScriptClient {
  const route = router(client);
  return {
    ...route,
    run: (script, keys, args) => {
      const options = { keys: keys as RedisKey[], arguments: args as string[] };
      return client.evalSha(script.sha, options).catch((error: unknown) => {
        if (!isNoScript(error)) throw error;
        return client.eval(script.source, options);
      });
    },
    del: (key) => client.del(key),
  };
}

/**
 * Cluster clients of both libraries expose their slot table as `slots`: ioredis an array of
 * `["host:port", ...replicas]` per slot, node-redis `{ master: { address } }` per slot.
 * A slot the table does not know yet gets its own breaker name, which is still isolated.
 */
function router(client: object): Pick<ScriptClient, 'cluster' | 'slotOf' | 'nodeOf'> {
  const table = (client as { slots?: unknown }).slots;
  if (!Array.isArray(table)) return { cluster: false, slotOf: () => 0, nodeOf: () => 'server' };
  return {
    cluster: true,
    slotOf: hashSlot,
    nodeOf: (slot) => {
      const entry = ((client as { slots: unknown[] }).slots[slot] ?? undefined) as unknown;
      if (Array.isArray(entry) && typeof entry[0] === 'string') return entry[0];
      const address = (entry as { master?: { address?: unknown } } | undefined)?.master?.address;
      return typeof address === 'string' ? address : `slot ${slot}`;
    },
  };
}

/** Runs `script` once over `keys` (one hash slot on a Cluster) through either client. */
export function runScript(client: RedisClient, script: LuaScript, keys: readonly RedisKey[], args: readonly (string | number)[]): Promise<unknown> {
  return scriptClient(client).run(script, keys, args.map(String));
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
