import { StoreLimiter, type LimiterStore, type StoreContext, type StoreRateLimiter } from '../backend/store-limiter.js';
import type { ClockSource } from '../core/clock.js';
import { RatelabError, describeValue } from '../core/errors.js';
import type { ObservedOptions } from '../core/decision-event.js';
import type { FailMode, FailOverReason, ReasonedDecision } from '../core/fail-over.js';
import { checkAlgorithm } from '../core/names.js';
import { checkKey, positiveMsOption } from '../core/options.js';
import type { Algorithm, PolicyInput } from '../core/policy.js';
import { ClusterChannel } from './cluster-channel.js';
import { RESET, decodeDecision, type ClusterError, type ClusterResult } from './cluster-protocol.js';

/** Who decided: the primary, or (it was `timeoutMs` late) the fail mode. */
export type ClusterDecisionReason = 'primary' | FailOverReason;

/** A {@link Decision} that says where it came from. */
export type ClusterDecision = ReasonedDecision<ClusterDecisionReason>;

/** Options of {@link createClusterLimiter}; events and shadow mode: {@link ObservedOptions}. */
export interface ClusterLimiterOptions extends ObservedOptions {
  /**
   * The name the primary serves the limiter under (`serveClusterLimiter(name, ...)`): required
   * in `createClusterLimiter(algorithm, policy, { name })`; the deprecated form passes it first.
   * Events name the limiter by it (`limiter`).
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

/**
 * A worker's view of a limiter the primary serves: the seam's limiter (`consume`, `allow`,
 * `wait`, `reset`, with promises). `consume` resolves with the primary's decision, or the
 * fail mode's once the primary is `timeoutMs` late; it rejects with `INVALID_KEY`/
 * `INVALID_COST`, or with the primary's refusal (`INVALID_ARGUMENT` when it serves no limiter
 * of this name, `INVALID_KEY` for a key over its `maxKeyBytes`, `INVALID_POLICY` naming the
 * first entry where this limiter's limits are not the primary's). `reset` has the primary
 * forget the key and resolves whether it held it; it rejects like `consume` for a bad key,
 * and when the primary does not answer within `timeoutMs`.
 */
export interface ClusterRateLimiter extends StoreRateLimiter<ClusterDecision> {
  /** The name the primary serves the limiter under. */
  readonly name: string;
}

/**
 * In a cluster worker: a limiter decided by the primary's `serveClusterLimiter(name, ...)`
 * over IPC (like rate-limiter-flexible's RateLimiterCluster), `options.name` naming it.
 * `algorithm` and `policy` (one policy or a list of limits) must be the primary's: the worker
 * uses them for the fail mode, and the primary rejects the calls of a worker whose limits
 * differ with `INVALID_POLICY` naming the entry (`policy[1].limit: the primary enforces
 * 1000, this worker asked for 2000`).
 * Throws `INVALID_ARGUMENT` outside a process with an IPC channel, or for a bad option.
 */
export function createClusterLimiter(
  algorithm: Algorithm,
  policy: PolicyInput,
  options: ClusterLimiterOptions & { name: string },
): ClusterRateLimiter;
/**
 * The order before every factory took `(algorithm, policy, options)`: works for one more release.
 * @deprecated use `createClusterLimiter(algorithm, policy, { name, ...options })`
 */
export function createClusterLimiter(
  name: string,
  algorithm: Algorithm,
  policy: PolicyInput,
  options?: ClusterLimiterOptions,
): ClusterRateLimiter;
export function createClusterLimiter(
  ...args:
    | [Algorithm, PolicyInput, ClusterLimiterOptions & { name: string }]
    | [string, Algorithm, PolicyInput, ClusterLimiterOptions?]
): ClusterRateLimiter {
  if (typeof process.send !== 'function') {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      'createClusterLimiter: this process has no IPC channel to a primary (call it in a cluster worker; the primary calls serveClusterLimiter)',
      { field: 'name' },
    );
  }
  // The deprecated order passes the algorithm second, where the current one passes the policy.
  if (typeof args[1] === 'string') return clusterLimiter(args[0], args[1], args[2] as PolicyInput, args[3] ?? {});
  return namedClusterLimiter(...(args as [Algorithm, PolicyInput, ClusterLimiterOptions | undefined]));
}

/** The current order: the name is `options.name`, required. */
function namedClusterLimiter(
  algorithm: Algorithm,
  policy: PolicyInput,
  options: ClusterLimiterOptions | undefined,
): ClusterRateLimiter {
  const name: unknown = options?.name;
  if (typeof name !== 'string')
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `name: expected the name the primary serves the limiter under, got ${describeValue(name)}`,
      { field: 'name' },
    );
  return clusterLimiter(name, algorithm, policy, options as ClusterLimiterOptions);
}

function clusterLimiter(
  name: string,
  algorithm: Algorithm,
  policy: PolicyInput,
  options: ClusterLimiterOptions,
): ClusterRateLimiter {
  return new ClusterLimiter(name, checkAlgorithm(algorithm), policy, options);
}

/** The cluster backend on the seam: the store is the primary, over {@link ClusterChannel}; the limiter adds its `name`. */
class ClusterLimiter extends StoreLimiter<ClusterDecision, PrimaryStore> implements ClusterRateLimiter {
  constructor(
    override readonly name: string,
    algorithm: Algorithm,
    policy: PolicyInput,
    options: ClusterLimiterOptions,
  ) {
    const { failMode, expectedNodes, clock, onDecision, onError, enforce } = options;
    super(
      algorithm,
      policy,
      { failMode, expectedNodes, clock, onDecision, onError, enforce, name, members: 'workers' },
      (context) => new PrimaryStore(context, name, options),
    );
  }
}

/** The primary's limiter, asked over IPC: what it decides, or (`timeoutMs` late) the fail mode. */
class PrimaryStore implements LimiterStore<ClusterDecision> {
  readonly retryAfterMs: number;
  private readonly channel: ClusterChannel;
  /** The limits' names, for the decisions of several (the primary sends their figures in order). */
  private readonly names: readonly string[];

  constructor(
    private readonly context: StoreContext,
    name: string,
    options: ClusterLimiterOptions,
  ) {
    // `?? 100` first: a null timeout means the default here.
    this.retryAfterMs = positiveMsOption(options.timeoutMs ?? 100, 'timeoutMs', 100);
    this.channel = new ClusterChannel(name, this.retryAfterMs, context.policies);
    this.names = context.policies.map((entry) => entry.name);
  }

  async decide(key: string, cost: number): Promise<ClusterDecision> {
    checkKey(key);
    const result = await this.ask(key, cost);
    if (result === undefined || result === null)
      return this.context.unavailable(key, cost, `the primary did not answer within ${this.retryAfterMs} ms`);
    if ('error' in result) throw refusal(result.error);
    if ('reset' in result)
      throw new RatelabError('INVALID_DECISION', 'createClusterLimiter: the primary answered a decision with a reset', {
        field: 'name',
      });
    return { ...decodeDecision(result, this.names), reason: 'primary' };
  }

  async reset(key: string): Promise<boolean> {
    checkKey(key);
    const result = await this.ask(key, RESET);
    if (result === undefined || result === null)
      throw new Error(
        `createClusterLimiter: the primary did not answer the reset of ${JSON.stringify(key)} within ${this.retryAfterMs} ms`,
      );
    if ('error' in result) throw refusal(result.error);
    return 'reset' in result && result.reset;
  }

  private ask(key: string, cost: number | typeof RESET): Promise<ClusterResult | undefined> {
    return new Promise((settle) => this.channel.submit({ key, cost, settle }));
  }
}

function refusal(error: ClusterError): RatelabError {
  return new RatelabError(error.code, error.message, { field: error.field });
}
