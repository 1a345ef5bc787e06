import type { Cluster, Redis } from 'ioredis';
import type { LuaScript } from './scripts.js';

/** A Redis client ratelab can use: an ioredis client, or an ioredis Cluster client. */
export type RedisClient = Redis | Cluster;

/**
 * Runs `script` by EVALSHA, and by EVAL (which also caches it) when the server answers
 * NOSCRIPT: after a restart, a failover to a replica that never saw it, or SCRIPT FLUSH.
 * Scripts are not registered on the client with defineCommand, so a client the user hands
 * in is used as it is, never modified.
 */
export async function runScript(client: RedisClient, script: LuaScript, keys: readonly string[], args: readonly (string | number)[]): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return client.eval(script.source, keys.length, ...keys, ...args);
  }
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}
