import { schedulerOf, type ClockSource } from '../core/clock.js';
import type { Decision } from '../core/decision.js';
import { RatelabError, describeValue } from '../core/errors.js';
import type { AsyncRateLimiter } from '../core/limiter.js';
import { checkExpectedNodes, checkFailMode, FailOver, localSharePolicy, type FailMode, type FailOverReason, type ReasonedDecision } from '../core/fail-over.js';
import { positiveMsOption, checkCost, checkKey } from '../core/options.js';
import { createLimiter } from '../memory/limiter.js';
import { checkAlgorithm } from '../core/names.js';
import { checkPolicy, type Algorithm, type Limits, type Policy } from '../core/policy.js';
import { spreadRetry } from '../wait/jitter.js';
import { lazyWait, type WaitOptions } from '../wait/key-waiters.js';
import { ClusterChannel } from './cluster-channel.js';
import { RESET, decodeDecision, type ClusterError, type ClusterResult } from './cluster-protocol.js';

/** Who decided: the primary, or (it was `timeoutMs` late) the fail mode. */
export type ClusterDecisionReason = 'primary' | FailOverReason;

/** A {@link Decision} that says where it came from. */
export type ClusterDecision = ReasonedDecision<ClusterDecisionReason>;

/** Options of {@link createClusterLimiter}. */
export interface ClusterLimiterOptions {
  /**
   * The name the primary serves the limiter under (`serveClusterLimiter(name, ...)`): required
   * in `createClusterLimiter(algorithm, policy, { name })`; the deprecated form passes it first.
   */
  name?: string;
  /**
   * How late the primary may be, in ms (default 100): a batch of calls it has not answered
   * this long after it was sent gets the fail mode, and so do the calls queued behind it if
   * the primary answered nothing meanwhile (stuck, not slow). Time a call waits in this
   * worker for its turn to be sent (a burst) is not counted. A positive number.
   */
  timeoutMs?: number;
  /** Without an answer in time: `open` admits (default), `closed` denies, `local` decides in this worker. */
  failMode?: FailMode;
  /** With `failMode: 'local'` (required there): the worker count N; each worker then allows `limit / N`. */
  expectedNodes?: number;
  /** The clock of the `local` fallback (default: the system clock). */
  clock?: ClockSource;
}

/** A worker's view of a limiter the primary serves: an {@link AsyncRateLimiter} answering with promises. */
export interface ClusterRateLimiter extends AsyncRateLimiter<ClusterDecision> {
  readonly name: string;
  readonly algorithm: Algorithm;
  readonly limits: Limits;
  readonly failMode: FailMode;
  /**
   * Takes `cost` units (whole number >= 0, default 1) for `key`: the primary's decision, or
   * the fail mode's once the primary is `timeoutMs` late. Rejects with `INVALID_KEY`/
   * `INVALID_COST`, or with the primary's refusal (`INVALID_ARGUMENT` when it serves no
   * limiter of this name, `INVALID_KEY` for a key over its `maxKeyBytes`).
   */
  consume(key: string, cost?: number): Promise<ClusterDecision>;
  /** `(await consume(key)).allowed`. */
  allow(key: string): Promise<boolean>;
  /**
   * Waits until `cost` units were taken (see RateLimiter.wait): first come first served per
   * key within this worker; across workers best-effort, retrying at `retryAfterMs` plus jitter.
   */
  wait(key: string, cost?: number, options?: WaitOptions): Promise<ClusterDecision>;
  /**
   * Has the primary forget `key` (its next request starts with a full quota); resolves
   * whether the primary held it. Rejects like `consume` for a bad key, and when the primary
   * does not answer within `timeoutMs`.
   */
  reset(key: string): Promise<boolean>;
}

/**
 * In a cluster worker: a limiter decided by the primary's `serveClusterLimiter(name, ...)`
 * over IPC (like rate-limiter-flexible's RateLimiterCluster), `options.name` naming it.
 * `algorithm` and `policy` must be the primary's: the worker uses them for the fail mode.
 * Throws `INVALID_ARGUMENT` outside a process with an IPC channel, or for a bad option.
 */
export function createClusterLimiter(algorithm: Algorithm, policy: Policy, options: ClusterLimiterOptions & { name: string }): ClusterRateLimiter;
/**
 * The order before every factory took `(algorithm, policy, options)`: works for one more release.
 * @deprecated use `createClusterLimiter(algorithm, policy, { name, ...options })`
 */
export function createClusterLimiter(name: string, algorithm: Algorithm, policy: Policy, options?: ClusterLimiterOptions): ClusterRateLimiter;
export function createClusterLimiter(...args: [Algorithm, Policy, ClusterLimiterOptions & { name: string }] | [string, Algorithm, Policy, ClusterLimiterOptions?]): ClusterRateLimiter {
  if (typeof process.send !== 'function') {
    throw new RatelabError('INVALID_ARGUMENT', 'createClusterLimiter: this process has no IPC channel to a primary (call it in a cluster worker; the primary calls serveClusterLimiter)', { field: 'name' });
  }
  // The deprecated order passes the algorithm second, where the current one passes the policy.
  if (typeof args[1] === 'string') return clusterLimiter(args[0], args[1], args[2] as Policy, args[3] ?? {});
  const [algorithm, policy, options] = args as [Algorithm, Policy, ClusterLimiterOptions | undefined];
  const name: unknown = options?.name;
  if (typeof name !== 'string') throw new RatelabError('INVALID_ARGUMENT', `name: expected the name the primary serves the limiter under, got ${describeValue(name)}`, { field: 'name' });
  return clusterLimiter(name, algorithm, policy, options as ClusterLimiterOptions);
}

function clusterLimiter(name: string, algorithm: Algorithm, policy: Policy, options: ClusterLimiterOptions): ClusterRateLimiter {
  const checked = checkAlgorithm(algorithm);
  const limits = checkPolicy(policy, checked);
  // `?? 100` first: a null timeout means the default here.
  const timeoutMs = positiveMsOption(options.timeoutMs ?? 100, 'timeoutMs', 100);
  const failMode = checkFailMode(options.failMode ?? 'open');
  const nodes = checkExpectedNodes(failMode, options.expectedNodes, 'workers');
  const local = nodes === undefined ? undefined : createLimiter(checked, localSharePolicy(limits, nodes), options.clock ? { clock: options.clock } : {});
  const failOver = new FailOver(failMode, limits.capacity, timeoutMs, local);
  const channel = new ClusterChannel(name, timeoutMs);
  const ask = (key: string, cost: number | typeof RESET) => new Promise<ClusterResult | undefined>((settle) => channel.submit({ key, cost, settle }));

  const consume = async (key: string, cost = 1): Promise<ClusterDecision> => {
    checkCost(cost);
    checkKey(key);
    const result = await ask(key, cost);
    if (result === undefined || result === null) return failOver.decide(key, cost);
    if ('error' in result) throw refusal(result.error);
    if ('reset' in result) throw new RatelabError('INVALID_DECISION', 'createClusterLimiter: the primary answered a decision with a reset', { field: 'name' });
    return { ...decodeDecision(result), reason: 'primary' };
  };

  const reset = async (key: string): Promise<boolean> => {
    checkKey(key);
    failOver.forget(key);
    const result = await ask(key, RESET);
    if (result === undefined || result === null) throw new Error(`createClusterLimiter: the primary did not answer the reset of ${JSON.stringify(key)} within ${timeoutMs} ms`);
    if ('error' in result) throw refusal(result.error);
    return 'reset' in result && result.reset;
  };

  const waitFor = lazyWait(consume, { scheduler: schedulerOf(options.clock), capacity: limits.capacity, jitter: spreadRetry });
  return {
    name,
    algorithm: checked,
    limits,
    failMode,
    consume,
    allow: async (key) => (await consume(key)).allowed,
    wait: (key, cost = 1, waitOptions) => waitFor(key, cost, waitOptions),
    reset,
  };
}

function refusal(error: ClusterError): RatelabError {
  return new RatelabError(error.code, error.message, { field: error.field });
}
