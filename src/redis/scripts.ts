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
 * and runs its algorithm's body. The buckets' and the window algorithms' limits keep their
 * state in one value per key (packed.lua's helpers in place of common.lua's), decided
 * first; each sliding log keeps its own list. Keys hold each call's packed value (when
 * there is one), then its sliding logs' lists, in `list`'s order ({@link compositeLayout}).
 * Built once per process and list.
 */
export function compositeScript(list: readonly NamedLimits[], minTtlMs: number, repair = false): LuaScript {
  const constants = `local limit, window, capacity, min_ttl, repair = 0, 0, 0, ${minTtlMs}, ${repair}`;
  const parts = list.map((l) => `${l.algorithm}:${l.limit}:${l.windowMs}:${l.capacity}`);
  const name = `composite ${parts.join(',')} ${constants}`;
  let script = cache.get(name);
  if (script === undefined) {
    const { order, slots, size } = compositeLayout(list);
    const algorithms = [...new Set(list.map((l) => l.algorithm))];
    const bodies = algorithms.map((a) => `local function ${bodyName(a)}()\n${readLua(a)}\nend\n`).join('');
    const calls = order.map((place, j) => {
      const l = list[place] as NamedLimits;
      const constants = `${l.limit}, ${l.windowMs}, ${l.capacity}`;
      const set =
        j < slots.length
          ? `limit, window, capacity, slot = ${constants}, ${slots[j]}`
          : `limit, window, capacity = ${constants}`;
      return `  function() ${set} return ${bodyName(l.algorithm)}() end,`;
    });
    // The packed limits' decisions, unrolled (the hot path: a loop over `parts` measured
    // about a tenth more time inside Redis per decision, bench/redis-lua-cost.ts).
    const packedCalls = order.slice(0, slots.length).map((place, j) => {
      const l = list[place] as NamedLimits;
      const at = (k: number) => `replies[base + ${4 * place + k}]`;
      return [
        `  limit, window, capacity, slot, cost, now = ${l.limit}, ${l.windowMs}, ${l.capacity}, ${slots[j]}, asked, at`,
        `  allowed, remaining, retry, reset = ${bodyName(l.algorithm)}()`,
        `  ${at(1)}, ${at(2)}, ${at(3)}, ${at(4)} = allowed, remaining, retry, reset`,
        '  if allowed == 0 then admitted = false end',
      ].join('\n');
    });
    const end = [
      `local parts = {\n${calls.join('\n')}\n}`,
      `local places = { ${order.map((place) => place + 1).join(', ')} }`,
      `local packed, size = ${slots.length}, ${size}`,
      `local layout = '${'d'.repeat(size)}'`,
      'local replies = {}',
      '-- Decides the packed limits of a call of `asked` at `at`, its replies from `replies[base + 1]`; whether all admit.',
      'local function decide_packed(asked, at, base)',
      '  local admitted, allowed, remaining, retry, reset = true',
      ...packedCalls,
      '  return admitted',
      'end',
      readLua('composite'),
    ].join('\n');
    const helpers = helpersUsedBy(readLua('common'), bodies + end, readLua('packed'));
    script = luaScript('composite', `${constants}\n${helpers}\n${bodies}${end}`);
    cache.set(name, script);
  }
  return script;
}

/** How many numbers each packed algorithm's state takes in the packed value (packed.lua). */
const PACKED_WIDTH: Partial<Record<Algorithm, number>> = {
  'token-bucket': 2,
  gcra: 2,
  'fixed-window': 2,
  'sliding-counter': 3,
};

/**
 * Where a composite keeps each limit: `order`, the list's indexes in the order the script
 * decides them (the packed limits, then the sliding logs, each in the list's order);
 * `slots`, each packed limit's offset in the packed value (after its first double, the TTL's
 * end); `size`, the packed value's doubles (0: no packed value, every limit a sliding log).
 */
export function compositeLayout(list: readonly NamedLimits[]): { order: number[]; slots: number[]; size: number } {
  const order: number[] = [];
  const slots: number[] = [];
  let size = 1;
  list.forEach((l, place) => {
    const width = PACKED_WIDTH[l.algorithm];
    if (width === undefined) return;
    order.push(place);
    slots.push(size);
    size += width;
  });
  list.forEach((l, place) => {
    if (PACKED_WIDTH[l.algorithm] === undefined) order.push(place);
  });
  return { order, slots, size: slots.length > 0 ? size : 0 };
}

/** The Lua name of `algorithm`'s body in a composite script (`decide_token_bucket`). */
function bodyName(algorithm: Algorithm): string {
  return `decide_${algorithm.replace(/-/g, '_')}`;
}

/**
 * common.lua without the helpers `code` never calls. Its paragraphs (separated by blank
 * lines) each define one helper, after a first one that every script needs; a helper is
 * kept when `code` or a kept helper names it. `overrides`, in the same shape, replaces the
 * helpers of the same names; its first paragraph, always kept, follows common's. Each helper a script
 * carries costs a closure on every call (bench/redis-lua-cost.ts measures whole scripts).
 */
export function helpersUsedBy(common: string, code: string, overrides = ''): string {
  const [head = '', ...helpers] = common.split(/\n\s*\n/);
  const [extraHead = '', ...replacements] = overrides === '' ? [] : overrides.split(/\n\s*\n/);
  const replaced = new Map(replacements.map((text) => [definedName(text), text]));
  const named = helpers.map((text) => {
    const name = definedName(text);
    return { text: replaced.get(name) ?? text, name };
  });
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
  const heads = overrides === '' ? [head] : [head, extraHead];
  return [...heads, ...named.filter(({ name }) => kept.has(name)).map(({ text }) => text)].join('\n\n');
}

function definedName(helper: string): string {
  const match = /^local (?:function )?([A-Za-z_]\w*)/m.exec(helper);
  if (match === null) throw new Error(`common.lua: a paragraph that defines nothing: ${helper.slice(0, 60)}`);
  return match[1] as string;
}
