import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Algorithm, Limits } from '../policy.js';

/** A Lua script as Redis knows it: its source and the SHA1 that EVALSHA names it by. */
export interface LuaScript {
  readonly name: string;
  readonly source: string;
  readonly sha: string;
}

/** Reads `name.lua` from this folder (dist/ holds copies beside the compiled modules). */
export function readLua(name: string): string {
  return readFileSync(new URL(`./${name}.lua`, import.meta.url), 'utf8');
}

/** A script from its source: its SHA1 is computed here, so no SCRIPT LOAD is needed. */
export function luaScript(name: string, source: string): LuaScript {
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

const cache = new Map<string, LuaScript>();

/**
 * The decision script of `algorithm` for one policy: the policy's constants, the shared
 * head (common.lua: helpers), the algorithm's body as the function `decide`, and the loop
 * deciding each key of the call (batch.lua: time, per-key errors, `repair`). Constants in the
 * source rather than arguments make each call cheaper to send and to start; a fleet has a
 * handful of policies, so the server caches a handful of scripts. Built once per process.
 */
export function limiterScript(algorithm: Algorithm, limits: Limits, minTtlMs: number, repair = false): LuaScript {
  const constants = `local limit, window, capacity, min_ttl, repair = ${limits.limit}, ${limits.windowMs}, ${limits.capacity}, ${minTtlMs}, ${repair}`;
  const name = `${algorithm} ${constants}`;
  let script = cache.get(name);
  if (script === undefined) {
    const body = `local function decide()\n${readLua(algorithm)}\nend\n`;
    script = luaScript(algorithm, `${constants}\n${readLua('common')}\n${body}${readLua('batch')}`);
    cache.set(name, script);
  }
  return script;
}
