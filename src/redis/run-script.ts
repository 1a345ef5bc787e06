import type { LuaScript } from './scripts.js';

/**
 * The Redis commands ratelab sends, as a structural type: an ioredis `Redis` or `Cluster`
 * client fits it, and ratelab's declarations need no ioredis types (a TypeScript project
 * without ioredis type checks them). Each command resolves with the server's reply.
 */
export interface RedisClient {
  /** EVALSHA: runs a cached script by its SHA-1; rejects with a `NOSCRIPT` error when not cached. */
  evalsha(sha: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** EVAL: runs (and caches) a script's source. */
  eval(script: string, numKeys: number, ...keysAndArgs: (string | number)[]): Promise<unknown>;
  /** DEL: deletes keys, resolving with how many existed. */
  del(...keys: string[]): Promise<number>;
}

/**
 * Runs `script` by EVALSHA, and by EVAL (which also caches it) when the server answers
 * NOSCRIPT: after a restart, a failover to a replica that never saw it, or SCRIPT FLUSH.
 * Scripts are not registered on the client with defineCommand, so a client the user hands
 * in is used as it is, never modified.
 */
export function runScript(client: RedisClient, script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  const words = [...keys, ...args];
  return client.evalsha(script.sha, keys.length, ...words).catch((error: unknown) => {
    if (!isNoScript(error)) throw error;
    return client.eval(script.source, keys.length, ...words);
  });
}

/**
 * {@link runScript} for a script of one key: the decision path, called per request, so it
 * builds no argument arrays and adds no async frame of its own.
 */
export function runKeyScript(client: RedisClient, script: LuaScript, key: string, first: string, second: string): Promise<unknown> {
  return client.evalsha(script.sha, 1, key, first, second).catch((error: unknown) => {
    if (!isNoScript(error)) throw error;
    return client.eval(script.source, 1, key, first, second);
  });
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
