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
 * When every limit is packed (no sliding log), the script is leaner: each body is inlined
 * over the packed value's numbers ({@link packedTail}, composite-packed.lua). Built once per
 * process and list.
 */
export function compositeScript(list: readonly NamedLimits[], minTtlMs: number, repair = false): LuaScript {
  const constants = `local limit, window, capacity, min_ttl, repair = 0, 0, 0, ${minTtlMs}, ${repair}`;
  const parts = list.map((l) => `${l.algorithm}:${l.limit}:${l.windowMs}:${l.capacity}`);
  const name = `composite ${parts.join(',')} ${constants}`;
  let script = cache.get(name);
  if (script === undefined) {
    const { order, slots, size } = compositeLayout(list);
    if (order.length === slots.length) {
      script = luaScript('composite', `${constants}\n${packedTail(list, order, slots, size)}`);
      cache.set(name, script);
      return script;
    }
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

/**
 * The helpers, the prelude and the tail of a composite whose every limit is packed
 * (composite-packed.lua): each limit's body inlined twice (deciding, and deciding again at
 * cost 0 after a denial), its state its slice of the packed value's numbers, held in locals
 * (`s_1`, the TTL's end, `s_2`, ...), its writes packed-inline.lua's functions inlined. Inlined, not
 * called: a call per limit and per helper measured about a fifth of a two-limit decision's
 * time inside Redis (bench/redis-lua-cost.ts).
 */
function packedTail(list: readonly NamedLimits[], order: number[], slots: number[], size: number): string {
  const names = Array.from({ length: size }, (_, k) => `s_${k + 1}`);
  const templates = functionsOf(luaCode(readLua('packed-inline')));
  const widths = replyWidths(list);
  const offsets = replyOffsets(widths);
  const at = (place: number, k: number) => `replies[base + ${(offsets[place] as number) + k}]`;
  const entries = (place: number, from: number) =>
    Array.from({ length: (widths[place] as number) - from + 1 }, (_, k) => at(place, from + k)).join(', ');
  const blocks = order.map((place, j) => {
    const l = list[place] as NamedLimits;
    const slot = slots[j] as number;
    const slice = names.slice(slot, slot + (PACKED_WIDTH[l.algorithm] as number)).join(', ');
    const { code, values, compositeValues } = bodyOf(l.algorithm);
    const answer = widths[place] === COMPOSITE_BUCKET_WIDTH ? (compositeValues as string) : values;
    const read = code.replace(/\bread_(?:pair|fields)\([^()]*\)/g, slice);
    const body = inlineCalls(read, templates, slice);
    const set = `limit, window, capacity, now = ${l.limit}, ${l.windowMs}, ${l.capacity}, at`;
    return {
      decide: `${set}\ndo\n${body}\n${entries(place, 1)} = ${answer}\nend`,
      redecide: `if ${at(place, 1)} == 1 then\n${set}\ndo\n${body}\nlocal _\n_, ${entries(place, 2)} = ${answer}\nend\nend`,
    };
  });
  const tail = fill(luaCode(readLua('composite-packed')), {
    '@state': names.join(', '),
    '@expires': names[0] as string,
    '@decide': blocks.map((b) => b.decide).join('\n'),
    '@redecide': blocks.map((b) => b.redecide).join('\n'),
    '@admitted': order.map((place) => `${at(place, 1)} == 1`).join(' and '),
  });
  const stride = widths.reduce((sum, width) => sum + width, 0);
  const prelude = [
    `local stride, bytes, layout = ${stride}, ${8 * size}, '${'d'.repeat(size)}'`,
    'local need_until, renew_until = 0, 0',
    `local ${names.join(', ')}`,
  ].join('\n');
  return luaCode(`${helpersUsedBy(readLua('common'), tail)}\n${prelude}\n${tail}`);
}

/** The reply numbers of a limit of a composite's script: allowed (0|1), remaining, retryAfterMs (-1: never), resetMs. */
const COMPOSITE_REPLY_WIDTH = 4;
/**
 * The reply numbers of a bucket (token bucket, GCRA) in a composite whose every limit is
 * packed: allowed (0|1) and the units it holds in use after the decision (fixed point: a
 * request is `windowMs` units, `capacity * windowMs` the most, each ms frees `limit`),
 * rounded up; the client works out the rest (`bucketAnswer` in redis-limiter.ts). Half the
 * reply, and none of the division and rounding in Redis, which every app server shares
 * (measured: bench/redis-lua-cost.ts, docs/redis.md).
 */
export const COMPOSITE_BUCKET_WIDTH = 2;

/** Whether `algorithm`'s limits count units in use, as the buckets do (see {@link COMPOSITE_BUCKET_WIDTH}). */
function countsUnitsInUse(algorithm: Algorithm): boolean {
  return algorithm === 'token-bucket' || algorithm === 'gcra';
}

/**
 * How many numbers a composite's script replies per limit, in `list`'s order: for a
 * bucket, {@link COMPOSITE_BUCKET_WIDTH} when every limit is packed (composite-packed.lua),
 * else {@link COMPOSITE_REPLY_WIDTH}. A key's replies are its limits', one after another.
 */
export function replyWidths(list: readonly NamedLimits[]): number[] {
  const { order, slots } = compositeLayout(list);
  const allPacked = order.length === slots.length;
  return list.map((l) => (allPacked && countsUnitsInUse(l.algorithm) ? COMPOSITE_BUCKET_WIDTH : COMPOSITE_REPLY_WIDTH));
}

/** Where each limit's replies start among its key's, from {@link replyWidths}. */
export function replyOffsets(widths: readonly number[]): number[] {
  const offsets: number[] = [];
  let at = 0;
  for (const width of widths) {
    offsets.push(at);
    at += width;
  }
  return offsets;
}

/** `template` with each placeholder replaced by its text (each must occur). */
function fill(template: string, values: Record<string, string>): string {
  let text = template;
  for (const [placeholder, value] of Object.entries(values)) {
    if (!text.includes(placeholder)) throw new Error(`composite-packed.lua: no ${placeholder}`);
    text = text.split(placeholder).join(value);
  }
  return text;
}

/** Lua source without its whole-line comments. */
function luaCode(source: string): string {
  return source
    .split('\n')
    .filter((line) => !/^\s*--/.test(line))
    .join('\n');
}

/**
 * An algorithm's body as code and its last statement's values (its one `return`), and, for
 * a bucket, its values in a composite, from its `-- reply in a composite: ...` line.
 */
function bodyOf(algorithm: Algorithm): { code: string; values: string; compositeValues: string | undefined } {
  const source = readLua(algorithm);
  const lines = luaCode(source).trimEnd().split('\n');
  const last = lines.pop() as string;
  const code = lines.join('\n');
  if (!last.startsWith('return ') || /\breturn\b/.test(code))
    throw new Error(`${algorithm}.lua: a body to inline returns once, on its last line`);
  const compositeValues = /^-- reply in a composite: (.+)$/m.exec(source)?.[1];
  if (countsUnitsInUse(algorithm) && compositeValues === undefined)
    throw new Error(`${algorithm}.lua: a bucket's body declares its reply in a composite`);
  return { code, values: last.slice('return '.length), compositeValues };
}

interface LuaFunction {
  params: string;
  body: string;
}

/** The `local function name(params) ... end` definitions of `code`, by name. */
function functionsOf(code: string): Map<string, LuaFunction> {
  const functions = new Map<string, LuaFunction>();
  for (const match of code.matchAll(/^local function (\w+)\(([^)]*)\)\n([\s\S]*?)\nend$/gm)) {
    functions.set(match[1] as string, { params: match[2] as string, body: match[3] as string });
  }
  return functions;
}

/**
 * `code` with each call of a function of `functions` (a statement) replaced by that
 * function's body in a block binding its parameters to the call's arguments, `slice` in
 * it standing for `slice`; again in what that brings in, until no call is left.
 */
function inlineCalls(code: string, functions: Map<string, LuaFunction>, slice: string): string {
  const call = new RegExp(`\\b(${[...functions.keys()].join('|')})\\(`);
  let text = code;
  for (let match = call.exec(text), left = 100; match !== null; match = call.exec(text), left--) {
    if (left === 0) throw new Error('packed-inline.lua: functions that call each other without end');
    const open = match.index + match[0].length;
    const close = closingParen(text, open);
    const { params, body } = functions.get(match[1] as string) as LuaFunction;
    const args = text.slice(open, close);
    const block = `do\nlocal ${params} = ${args}\n${body.replace(/\bslice\b/g, slice)}\nend`;
    text = text.slice(0, match.index) + block + text.slice(close + 1);
  }
  return text;
}

/** The index of the `)` closing the parenthesis opened just before `from` in `text` (strings skipped). */
function closingParen(text: string, from: number): number {
  let depth = 1;
  for (let i = from; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      i = text.indexOf(c, i + 1);
      if (i < 0) break;
    } else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  throw new Error(`an unclosed call in a Lua body: ${text.slice(from - 20, from + 40)}`);
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
