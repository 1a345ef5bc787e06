import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { toClock, type ClockSource } from '../core/clock.js';
import { RatelabError } from '../core/errors.js';
import type { Consumer } from '../core/limiter.js';
import { DEFAULT_LIMITER_TIMEOUT_MS, loadTimeoutMs, settleWithin } from './limiter-timeout.js';
import type { Policy } from '../core/policy.js';

/** What a user's limiter returns per call: a Decision, or at least `{ allowed }`, or a boolean. */
export type ExternalResult =
  boolean | { allowed: boolean; remaining?: number; retryAfterMs?: number; resetMs?: number; limit?: number };

/** A user's limiter, as its module made it. `consume` may be sync or async. */
export interface ExternalLimiter extends Consumer<ExternalResult> {
  /** The module's file name, for reports. */
  readonly name: string;
}

/**
 * The contract of `--limiter ./my-limiter.mjs`: the module's default export (or its named
 * export `createLimiter`) is a factory `(policy, { clock }) => limiter`, sync or async,
 * where `policy` is `{ limit, windowMs, burst? }`, `clock()` returns the (virtual) time in
 * ms, and `limiter.consume(key, cost)` returns (or resolves to) `{ allowed, ... }` or a
 * boolean. The limiter must read time only from `clock`, so the lab can replay traffic on
 * its virtual clock.
 *
 * Loading the module (its top-level await) and the factory's promise must each settle
 * within `loadTimeoutMs(timeoutMs)` (`timeoutMs`, default {@link DEFAULT_LIMITER_TIMEOUT_MS},
 * being the bound of one call), else `LIMITER_TIMEOUT` naming the module and the step. Throws `FILE_NOT_FOUND`, or `INVALID_LIMITER_MODULE`
 * saying what does not fit.
 */
export async function loadLimiterModule(
  path: string,
  policy: Policy,
  clock: ClockSource,
  cwd = process.cwd(),
  timeoutMs = DEFAULT_LIMITER_TIMEOUT_MS,
): Promise<ExternalLimiter> {
  const file = resolve(cwd, path);
  if (
    !(await stat(file).then(
      (s) => s.isFile(),
      () => false,
    ))
  ) {
    throw new RatelabError('FILE_NOT_FOUND', `${path}: no such file`, { field: path });
  }
  let exports: Record<string, unknown>;
  try {
    exports = (await settleWithin(
      import(pathToFileURL(file).href),
      loadTimeoutMs(timeoutMs),
      path,
      () => 'loading it (its top-level await)',
    )) as Record<string, unknown>;
  } catch (error) {
    if (isTimeout(error)) throw error;
    throw invalid(path, `cannot be loaded: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
  }
  const factory = typeof exports.default === 'function' ? exports.default : exports.createLimiter;
  if (typeof factory !== 'function') {
    throw invalid(
      path,
      'must export a factory function (policy, { clock }) => limiter, as its default export or as createLimiter',
    );
  }
  let limiter: unknown;
  try {
    limiter = await settleWithin(
      Promise.resolve(factory({ ...policy }, { clock: toClock(clock) })),
      loadTimeoutMs(timeoutMs),
      path,
      () => "its factory's promise",
    );
  } catch (error) {
    if (isTimeout(error)) throw error;
    throw invalid(path, `its factory threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (
    typeof limiter !== 'object' ||
    limiter === null ||
    typeof (limiter as { consume?: unknown }).consume !== 'function'
  ) {
    throw invalid(path, 'its factory must return an object with a consume(key, cost) method');
  }
  const consume = (limiter as { consume: ExternalLimiter['consume'] }).consume.bind(limiter);
  return { name: file.split(/[\\/]/).pop() as string, consume };
}

/** Reads `allowed` out of whatever an external limiter returned; throws if it is not there. */
export function allowedOf(result: ExternalResult, name: string): boolean {
  if (typeof result === 'boolean') return result;
  if (typeof result === 'object' && result !== null && typeof result.allowed === 'boolean') return result.allowed;
  throw invalid(name, `consume() must return { allowed: boolean } or a boolean, got ${JSON.stringify(result)}`);
}

function isTimeout(error: unknown): boolean {
  return error instanceof RatelabError && error.code === 'LIMITER_TIMEOUT';
}

function invalid(path: string, why: string): RatelabError {
  return new RatelabError('INVALID_LIMITER_MODULE', `${path}: ${why}`, { field: path });
}
