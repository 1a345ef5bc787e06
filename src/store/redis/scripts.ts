import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Algorithm } from '../../policy.js';

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

const cache = new Map<Algorithm, LuaScript>();

/**
 * The decision script of `algorithm`: the shared head (common.lua: arguments, time,
 * helpers) followed by the algorithm's body. Read once per process.
 */
export function limiterScript(algorithm: Algorithm): LuaScript {
  let script = cache.get(algorithm);
  if (script === undefined) {
    script = luaScript(algorithm, `${readLua('common')}\n${readLua(algorithm)}`);
    cache.set(algorithm, script);
  }
  return script;
}
