import { formatDuration } from './duration.js';
import { RatelabError, describeValue } from './errors.js';
import { checkAlgorithm } from './names.js';
import { checkPolicy, type Algorithm, type Limits, type NamedLimits, type PolicyInput } from './policy.js';

/** The most limits one composite holds: each is a script argument set in Redis and a column set per key. */
export const MAX_LIMITS = 16;

/** What a limit's name may be: it goes into headers, Redis keys and reports. */
export const LIMIT_NAME = /^[A-Za-z0-9._:-]{1,64}$/;

/** The name a limit goes by when given none: its window (`1s`, `1h`, `1500ms`). */
export function defaultLimitName(windowMs: number): string {
  return formatDuration(windowMs);
}

/** `limits` of `algorithm` under `name` (default: its window). */
export function namedLimits(
  algorithm: Algorithm,
  limits: Limits,
  name = defaultLimitName(limits.windowMs),
): NamedLimits {
  return { name, algorithm, limit: limits.limit, windowMs: limits.windowMs, capacity: limits.capacity };
}

/**
 * Checks what a limiter is to enforce and returns its limits, named: one entry for a single
 * policy, one per entry (in order) for a list. Each entry is checked as a policy
 * ({@link checkPolicy}, errors naming `${where}[i].limit`), its `algorithm` as an algorithm
 * (default `algorithm`), its `name` as a name (see `LimitSpec`). Throws `INVALID_POLICY`
 * for an empty list, more than {@link MAX_LIMITS}, a bad name or a name used twice, naming
 * the entry.
 */
export function checkLimitList(algorithm: Algorithm, policy: PolicyInput, where = 'policy'): NamedLimits[] {
  if (!Array.isArray(policy)) return [namedLimits(algorithm, checkPolicy(policy as never, algorithm, where))];
  const list = policy as readonly unknown[];
  if (list.length === 0 || list.length > MAX_LIMITS) {
    throw new RatelabError(
      'INVALID_POLICY',
      `${where}: expected 1 to ${MAX_LIMITS} limits, got ${list.length === 0 ? 'an empty list' : `${list.length}`}`,
      { field: where },
    );
  }
  const named: NamedLimits[] = [];
  list.forEach((entry, i) => {
    const at = `${where}[${i}]`;
    named.push(checkEntry(algorithm, entry, at));
    const first = named.findIndex((other) => other.name === (named[i] as NamedLimits).name);
    if (first !== i) {
      throw new RatelabError(
        'INVALID_POLICY',
        `${at}.name: ${JSON.stringify(named[i]?.name)} is already the name of ${where}[${first}]; give each limit its own name`,
        { field: `${at}.name` },
      );
    }
  });
  return named;
}

function checkEntry(algorithm: Algorithm, entry: unknown, at: string): NamedLimits {
  if (typeof entry !== 'object' || entry === null) {
    throw new RatelabError(
      'INVALID_POLICY',
      `${at}: expected an object { limit, windowMs, burst?, algorithm?, name? }, got ${describeValue(entry)}`,
      { field: at },
    );
  }
  const spec = entry as { algorithm?: unknown; name?: unknown };
  const own = spec.algorithm === undefined ? algorithm : checkAlgorithm(spec.algorithm, `${at}.algorithm`);
  const limits = checkPolicy(entry as never, own, at);
  if (spec.name === undefined) return namedLimits(own, limits);
  if (typeof spec.name !== 'string' || !LIMIT_NAME.test(spec.name)) {
    throw new RatelabError(
      'INVALID_POLICY',
      `${at}.name: expected 1 to 64 letters, digits or ._:- (it goes into headers and Redis keys), got ${describeValue(spec.name)}`,
      { field: `${at}.name` },
    );
  }
  return namedLimits(own, limits, spec.name);
}

/**
 * The limit a limiter of `list` reports as its `limits`: the one with the least capacity (the
 * first of those), which bounds the cost one request can ever take.
 */
export function tightestLimits(list: readonly NamedLimits[]): Limits {
  const tightest = tightestLimit(list);
  return { limit: tightest.limit, windowMs: tightest.windowMs, capacity: tightest.capacity };
}

/** The entry of `list` with the least capacity, the first of equals: the one {@link tightestLimits} answers with. */
export function tightestLimit(list: readonly NamedLimits[]): NamedLimits {
  let tightest = list[0] as NamedLimits;
  for (const entry of list) if (entry.capacity < tightest.capacity) tightest = entry;
  return tightest;
}

/** Where a limiter's limits differ from the ones asked for: the field (as {@link checkLimitList} names it) and both values. */
export interface LimitListDifference {
  readonly field: string;
  readonly enforced: string;
  readonly asked: string;
}

/** The fields compared, in the order a difference is reported: the window before the name its default derives from. */
const COMPARED = ['algorithm', 'limit', 'windowMs', 'capacity', 'name'] as const;

/**
 * The first difference between the limits a limiter `enforced` and the ones `asked` for, or
 * undefined when they are the same: the count (`policy`), else the first entry and field that
 * differ, named `${where}[1].windowMs` when either side is a list of several and
 * `${where}.limit` for one policy. A capacity is named `burst`, the field that sets it.
 */
export function limitListDifference(
  enforced: readonly NamedLimits[],
  asked: readonly NamedLimits[],
  where = 'policy',
): LimitListDifference | undefined {
  const count = (n: number) => (n === 1 ? '1 limit' : `${n} limits`);
  if (enforced.length !== asked.length)
    return { field: where, enforced: count(enforced.length), asked: count(asked.length) };
  const several = enforced.length > 1;
  for (let i = 0; i < enforced.length; i++) {
    const [mine, theirs] = [enforced[i] as NamedLimits, asked[i] as NamedLimits];
    for (const key of COMPARED) {
      if (mine[key] === theirs[key]) continue;
      const field = `${several ? `${where}[${i}]` : where}.${key === 'capacity' ? 'burst' : key}`;
      return { field, enforced: describeValue(mine[key]), asked: describeValue(theirs[key]) };
    }
  }
  return undefined;
}
