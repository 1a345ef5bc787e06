import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Algorithm, Limits } from '../core/policy.js';

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
 * How a decision script decides: `batch` (batch.lua) loops over every key of the call;
 * `single` (single.lua, for `batch: false`) decides one key without the loop's setup, its
 * arguments only the cost and a caller's time. Both run the same algorithm body.
 */
export type ScriptTail = 'batch' | 'single';

/**
 * The decision script of `algorithm` for one policy: the policy's constants, the shared
 * head (common.lua: helpers), the algorithm's body as the function `decide`, and the tail
 * deciding the key(s) of the call (time, per-key errors, `repair`). Constants in the
 * source rather than arguments make each call cheaper to send and to start; a fleet has a
 * handful of policies, so the server caches a handful of scripts. Built once per process.
 * Only the helpers the body uses go in: Redis creates each as a closure on every call.
 */
export function limiterScript(
  algorithm: Algorithm,
  limits: Limits,
  minTtlMs: number,
  repair = false,
  tail: ScriptTail = 'batch',
): LuaScript {
  const constants = `local limit, window, capacity, min_ttl, repair = ${limits.limit}, ${limits.windowMs}, ${limits.capacity}, ${minTtlMs}, ${repair}`;
  const name = `${algorithm} ${tail} ${constants}`;
  let script = cache.get(name);
  if (script === undefined) {
    const body = `local function decide()\n${readLua(algorithm)}\nend\n`;
    const end = readLua(tail);
    script = luaScript(algorithm, `${constants}\n${helpersUsedBy(readLua('common'), body + end)}\n${body}${end}`);
    cache.set(name, script);
  }
  return script;
}

/**
 * common.lua without the helpers `code` never calls. Its paragraphs (separated by blank
 * lines) each define one helper, after a first one that every script needs; a helper is
 * kept when `code` or a kept helper names it. Each helper a script carries costs a closure
 * on every call (bench/redis-lua-cost.ts measures whole scripts).
 */
export function helpersUsedBy(common: string, code: string): string {
  const [head = '', ...helpers] = common.split(/\n\s*\n/);
  const named = helpers.map((text) => ({ text, name: definedName(text) }));
  const kept = new Set<string>();
  let using = code;
  for (let grew = true; grew;) {
    grew = false;
    for (const { text, name } of named) {
      if (kept.has(name) || !new RegExp(`\\b${name}\\b`).test(using)) continue;
      kept.add(name);
      using += text;
      grew = true;
    }
  }
  return [head, ...named.filter(({ name }) => kept.has(name)).map(({ text }) => text)].join('\n\n');
}

function definedName(helper: string): string {
  const match = /^local (?:function )?([A-Za-z_]\w*)/m.exec(helper);
  if (match === null) throw new Error(`common.lua: a paragraph that defines nothing: ${helper.slice(0, 60)}`);
  return match[1] as string;
}
