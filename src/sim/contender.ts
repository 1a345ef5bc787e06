import { resolve } from 'node:path';
import { RatelabError } from '../core/errors.js';
import type { Clock } from '../core/clock.js';
import type { Consumer } from '../core/limiter.js';
import { loadLimiterModule } from '../metrics/external-limiter.js';
import { DEFAULT_LIMITER_TIMEOUT_MS } from '../metrics/limiter-timeout.js';
import { createLimiter, type RateLimiter } from '../memory/limiter.js';
import type { Algorithm, Policy, PolicyInput } from '../core/policy.js';

/**
 * What the replay drives: anything with `consume(key, cost)` returning a Decision, an
 * object with `allowed` (and optionally `retryAfterMs`), a boolean, or a Promise of one.
 */
export interface Decider extends Consumer<unknown> {
  /**
   * Optional: `consume(key, cost)`'s `allowed` alone, deciding exactly as `consume` would
   * (same state change), without building the rest of the Decision. An open-loop replay
   * needs nothing else, and for the built-ins the Decision was most of a replay's time.
   */
  admits?(key: string, cost: number): boolean;
}

/** A limiter under test, as a recipe: the replay builds a fresh one per run, on its own virtual clock. */
export interface Contender {
  /** Its name in reports: the algorithm's, or the module's file name. */
  readonly name: string;
  /** What the memory probe should build to measure it. */
  readonly probe: { algorithm: Algorithm; policy: PolicyInput } | { module: string; policy: Policy };
  /** Bytes of state per key by the limiter's own account (built-ins only). */
  readonly stateBytesPerKey: number | undefined;
  /** A fresh limiter reading time only from `clock`. */
  create(clock: Clock): Decider | Promise<Decider>;
  /**
   * How long one async `consume` may take, and the module to name when it does not settle
   * (`LIMITER_TIMEOUT`); default {@link DEFAULT_LIMITER_TIMEOUT_MS} under the contender's name.
   */
  readonly callTimeout?: { timeoutMs: number; module: string };
}

/**
 * A built-in algorithm under `policy`, one or a composite's list (every limit of it run by
 * `algorithm` unless an entry names its own). Throws `INVALID_POLICY` / `POLICY_TOO_LARGE`
 * now rather than mid-run.
 */
export function builtinContender(algorithm: Algorithm, policy: PolicyInput): Contender {
  const stateBytesPerKey = createLimiter(algorithm, policy, { clock: () => 0 }).stateBytesPerKey;
  return {
    name: algorithm,
    probe: { algorithm, policy },
    stateBytesPerKey,
    create: (clock) => admitting(createLimiter(algorithm, policy, { clock })),
  };
}

/**
 * `limiter` with the {@link Decider.admits} shortcut, through its public API only:
 * `allow(key)` is `consume(key, 1).allowed` without the Decision, and arrivals of another
 * cost (rare in scenarios) take `consume`.
 */
function admitting(limiter: RateLimiter): Decider {
  return {
    consume: (key, cost) => limiter.consume(key, cost),
    admits: (key, cost) => (cost === 1 ? limiter.allow(key) : limiter.consume(key, cost).allowed),
  };
}

/**
 * A user's limiter module (`--limiter ./my-limiter.mjs`, see `loadLimiterModule`) under
 * `policy`; `path` is resolved from `cwd`. Loads it once now, so a module that does not
 * fit the contract fails before anything runs. A composite policy is `INVALID_ARGUMENT`: a
 * module takes one policy. Loading, its factory and each async
 * `consume` must settle within `timeoutMs` (`LIMITER_TIMEOUT` naming `path` otherwise).
 */
export async function moduleContender(
  path: string,
  input: PolicyInput,
  cwd: string,
  timeoutMs = DEFAULT_LIMITER_TIMEOUT_MS,
): Promise<Contender> {
  if (Array.isArray(input))
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `--limiter: ${path} is given one policy { limit, windowMs, burst? }, and this run has a composite of ${input.length} limits; replay it with the built-in algorithms only`,
      { field: '--limiter' },
    );
  const policy = input as Policy;
  const first = await loadLimiterModule(path, policy, () => 0, cwd, timeoutMs);
  return {
    name: first.name,
    probe: { module: resolve(cwd, path), policy },
    stateBytesPerKey: undefined,
    create: (clock) => loadLimiterModule(path, policy, clock, cwd, timeoutMs),
    callTimeout: { timeoutMs, module: path },
  };
}
