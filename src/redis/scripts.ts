import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Algorithm, Limits, NamedLimits } from '../core/policy.js';

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
 * The decision script of several limits on each key, all or nothing (composite.lua): each
 * algorithm's body once, as a function of its own, and one function per limit that sets
 * the limit's constants (`limit`, `window`, `capacity`, which the bodies and helpers read)
 * and runs its algorithm's body. Keys hold each call's limits in `list`'s order. Built
 * once per process and list.
 */
export function compositeScript(list: readonly NamedLimits[], minTtlMs: number, repair = false): LuaScript {
  const constants = `local limit, window, capacity, min_ttl, repair = 0, 0, 0, ${minTtlMs}, ${repair}`;
  const parts = list.map((l) => `${l.algorithm}:${l.limit}:${l.windowMs}:${l.capacity}`);
  const name = `composite ${parts.join(',')} ${constants}`;
  let script = cache.get(name);
  if (script === undefined) {
    const algorithms = [...new Set(list.map((l) => l.algorithm))];
    const bodies = algorithms.map((a) => `local function ${bodyName(a)}()\n${readLua(a)}\nend\n`).join('');
    const calls = list.map(
      (l) =>
        `  function() limit, window, capacity = ${l.limit}, ${l.windowMs}, ${l.capacity} return ${bodyName(l.algorithm)}() end,`,
    );
    const end = `local parts = {\n${calls.join('\n')}\n}\n${readLua('composite')}`;
    script = luaScript('composite', `${constants}\n${helpersUsedBy(readLua('common'), bodies + end)}\n${bodies}${end}`);
    cache.set(name, script);
  }
  return script;
}

/** The Lua name of `algorithm`'s body in a composite script (`decide_token_bucket`). */
function bodyName(algorithm: Algorithm): string {
  return `decide_${algorithm.replace(/-/g, '_')}`;
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
