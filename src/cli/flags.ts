import { MAX_TIMER_MS } from '../core/clock.js';
import { parseDuration } from '../core/duration.js';
import { RatelabError, describeValue } from '../core/errors.js';
import { MAX_LIMITS, checkLimitList, defaultLimitName } from '../core/limit-list.js';
import {
  ALGORITHMS,
  MAX_LIMIT,
  checkPolicy,
  limitTooLarge,
  type Algorithm,
  type Policy,
  type PolicyInput,
} from '../core/policy.js';
import { checkAlgorithm } from '../core/names.js';
import { DEFAULT_MAX_ARRIVALS, checkArrivalCap } from '../scenario/arrival-estimate.js';
import type { ScenarioOverrides } from '../scenario/load-scenario.js';
import type { Scenario } from '../scenario/scenario.js';
import type { TrustProxy } from '../http/client-address.js';
import type { Gates } from '../sim/gates.js';
import { DEFAULT_LIMITER_TIMEOUT_MS } from '../metrics/limiter-timeout.js';

/**
 * A whole number from `min` to `max` given on the command line, in digits or with a
 * power-of-ten exponent (`1000000`, `1e6`): the one rule of every command, because sizes
 * such as `--keys 1e4,1e6` read best that way. Signs, fractions, hex and empty text are
 * refused; throws `INVALID_ARGUMENT` naming the flag. A number (a default) is checked alike.
 */
export function wholeNumberFlag(
  value: string | number,
  flag: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  const number = typeof value === 'number' ? value : /^\d+(e\d+)?$/i.test(value.trim()) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`;
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `${flag}: expected a whole number ${range}, got ${JSON.stringify(value)}`,
      { field: flag },
    );
  }
  return number;
}

/**
 * A finite number from `min` to `max` given on the command line (`1.5`, `2`, and for
 * percentages an optional trailing `%`); throws `INVALID_ARGUMENT` naming the flag.
 */
export function numberFlag(value: string, flag: string, min: number, max = Number.MAX_VALUE): number {
  const text = value.trim().replace(/%$/, '');
  const number = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!Number.isFinite(number) || number < min || number > max) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `${flag}: expected a number ${max === Number.MAX_VALUE ? `of at least ${min}` : `from ${min} to ${max}`}, got ${JSON.stringify(value)}`,
      { field: flag },
    );
  }
  return number;
}

/**
 * `--algorithms`: a comma-separated list of algorithm names, all of them when not given.
 * Blanks around names and empty entries are dropped and repeats kept once, in the order
 * given; throws `UNKNOWN_ALGORITHM` naming a wrong name, `INVALID_ARGUMENT` for a list
 * with no name at all.
 */
export function algorithmsFlag(list: string | undefined, flag = '--algorithms'): Algorithm[] {
  return nameListFlag(list, ALGORITHMS, flag, `a comma-separated list of ${ALGORITHMS.join(', ')}`, (name) =>
    checkAlgorithm(name, flag),
  );
}

/**
 * A flag holding a comma-separated list of names, `all` of them when not given. Blanks
 * around names and empty entries are dropped, each name goes through `check` (which throws
 * on a wrong one) and repeats are kept once, in the order given; a list with no name at all
 * throws `INVALID_ARGUMENT`: `flag: expected <expected>, got <the value>`.
 */
export function nameListFlag<T extends string>(
  list: string | undefined,
  all: readonly T[],
  flag: string,
  expected: string,
  check: (name: string) => T,
): T[] {
  if (list === undefined) return [...all];
  const names = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) throw usage(flag, `expected ${expected}, got ${describeValue(list)}`);
  return [...new Set(names.map(check))];
}

/**
 * `--limiter-timeout`: how long one call into a `--limiter` module (loading it, its
 * factory, each async `consume`) may take; default {@link DEFAULT_LIMITER_TIMEOUT_MS}.
 */
export function limiterTimeoutFlag(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIMITER_TIMEOUT_MS;
  const ms = parseDuration(value, '--limiter-timeout');
  if (ms > MAX_TIMER_MS) throw usage('--limiter-timeout', `expected at most 24d, got ${JSON.stringify(value)}`);
  return ms;
}

/** `--port`: 0 (any free port) to 65535. */
export function portFlag(value: string | number, flag = '--port'): number {
  return wholeNumberFlag(value, flag, 0, 65_535);
}

/** `--trust-proxy`: a number of hops, or a comma-separated list of proxy addresses/CIDR ranges. */
export function trustProxyFlag(value: string | undefined): TrustProxy {
  if (value === undefined) return false;
  if (/^\d+$/.test(value.trim())) return Number(value);
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** The gate flags of compare and attack (values still text). */
export interface GateFlags {
  /** `--max-worst-window R`: exit 1 when a row's worst window is above R times the limit. */
  maxWorstWindow?: string;
  /** `--max-error PCT`: exit 1 when a row's error is above PCT % of requests. */
  maxError?: string;
}

/** `--max-worst-window` (a ratio, at least 0) and `--max-error` (percent, 0 to 100) as gates; checked before anything runs. */
export function gateFlags(flags: GateFlags): Gates {
  return {
    ...(flags.maxWorstWindow === undefined
      ? {}
      : { maxWorstWindow: numberFlag(flags.maxWorstWindow, '--max-worst-window', 0) }),
    ...(flags.maxError === undefined ? {} : { maxErrorPercent: numberFlag(flags.maxError, '--max-error', 0, 100) }),
  };
}

/** The policy and seed flags shared by compare, distributed and attack (values still text). */
export interface PolicyFlags {
  limit?: string;
  window?: string;
  burst?: string;
  seed?: string;
}

/** The scenario overrides that `--limit`, `--window`, `--burst` and `--seed` ask for, each checked. */
export function policyOverrides(flags: PolicyFlags): ScenarioOverrides {
  const overrides: ScenarioOverrides = {};
  if (flags.limit !== undefined) overrides.limit = wholeNumberFlag(flags.limit, '--limit', 1, 0xffff_ffff);
  if (flags.window !== undefined) overrides.windowMs = parseDuration(flags.window, '--window');
  if (flags.burst !== undefined) overrides.burst = wholeNumberFlag(flags.burst, '--burst', 1, 0xffff_ffff);
  if (flags.seed !== undefined) overrides.seed = wholeNumberFlag(flags.seed, '--seed', 0, 0xffff_ffff);
  return overrides;
}

/**
 * `--policy LIST`: comma-separated `LIMIT/WINDOW` entries, e.g. `20/1s,1000/1h` (blanks
 * around entries and empty entries dropped, as every list flag). One entry is a single policy; several are a composite, every
 * limit enforced at once by each of `algorithms`. A limit is a whole number from 1 to
 * 2^32 - 1, a window a duration; each entry must suit every algorithm (the sliding log's
 * largest limit) and no two entries may share a window (a limit is named by its window).
 * Throws a usage error naming the flag and the entry (`--policy entry 2 ("1000/1x"): ...`).
 */
export function policyListFlag(value: string, algorithms: readonly Algorithm[], flag = '--policy'): PolicyInput {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0)
    throw usage(flag, `expected LIMIT/WINDOW entries such as 20/1s,1000/1h, got ${describeValue(value)}`);
  if (entries.length > MAX_LIMITS) throw usage(flag, `expected at most ${MAX_LIMITS} limits, got ${entries.length}`);
  const list: Policy[] = entries.map((entry, i) => {
    const where = `${flag} entry ${i + 1} (${JSON.stringify(entry)})`;
    const parts = entry.split('/');
    if (parts.length !== 2 || parts[0]?.trim() === '' || parts[1]?.trim() === '')
      throw usage(where, `expected LIMIT/WINDOW such as 20/1s, e.g. ${flag} 20/1s,1000/1h`);
    const policy = {
      limit: wholeNumberFlag(parts[0] as string, where, 1, MAX_LIMIT),
      windowMs: parseDuration(parts[1] as string, where),
    };
    for (const algorithm of algorithms) checkPolicy(policy, algorithm, where);
    return policy;
  });
  list.forEach((policy, i) => {
    const first = list.findIndex((other) => other.windowMs === policy.windowMs);
    if (first !== i)
      throw usage(
        `${flag} entry ${i + 1} (${JSON.stringify(entries[i])})`,
        `its window ${defaultLimitName(policy.windowMs)} is already that of entry ${first + 1}; give each limit its own window`,
      );
  });
  if (list.length === 1) return list[0] as Policy;
  for (const algorithm of algorithms) checkLimitList(algorithm, list, flag);
  return list;
}

/**
 * `--max-arrivals N` of the commands that replay scenarios: the most arrivals a scenario
 * may make (default DEFAULT_MAX_ARRIVALS); returns a check that refuses a scenario past it
 * with `TOO_MANY_ARRIVALS`, before anything runs.
 */
export function arrivalCapFlag(value: string | undefined): (scenario: Scenario) => Scenario {
  const cap = value === undefined ? DEFAULT_MAX_ARRIVALS : wholeNumberFlag(value, '--max-arrivals', 1);
  return (scenario) => {
    checkArrivalCap(scenario, cap);
    return scenario;
  };
}

/** A usage error naming the flag: exit 2. */
export function usage(flag: string, why: string): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${flag}: ${why}`, { field: flag });
}

/** The most limits `--sweep-limit` takes: each is a child process per algorithm. */
export const MAX_SWEEP_LIMITS = 12;

/**
 * `--sweep-limit LIST`: comma-separated whole numbers >= 1 (digits or `1e4`), blanks and
 * empty entries dropped, repeats kept once, sorted ascending; at most {@link MAX_SWEEP_LIMITS}.
 * Each limit must be one every algorithm of `algorithms` takes (the sliding log's at most
 * 2^20). Throws `INVALID_ARGUMENT` naming the flag and the bad entry.
 */
export function sweepLimitsFlag(list: string, algorithms: readonly Algorithm[], flag = '--sweep-limit'): number[] {
  const entries = list
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw usage(flag, `expected limits such as 10,100,1000,10000, got ${describeValue(list)}`);
  const limits = [...new Set(entries.map((entry) => wholeNumberFlag(entry, flag, 1, MAX_LIMIT)))].sort((a, b) => a - b);
  if (limits.length > MAX_SWEEP_LIMITS)
    throw usage(flag, `expected at most ${MAX_SWEEP_LIMITS} limits, got ${limits.length}`);
  for (const limit of limits) {
    for (const algorithm of algorithms) {
      const tooLarge = limitTooLarge(algorithm, limit);
      if (tooLarge) throw usage(flag, `${limit} (${algorithm}): ${tooLarge}`);
    }
  }
  return limits;
}
