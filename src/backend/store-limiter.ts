import { schedulerOf, toClock, type Clock, type ClockSource } from '../core/clock.js';
import type { Decision } from '../core/decision.js';
import type { DecisionListener, OutcomeCounter, ObservedOptions } from '../core/decision-event.js';
import { checkObservedOptions, DecisionObserver } from '../core/decision-observer.js';
import { DenyCache } from '../core/deny-cache.js';
import {
  checkExpectedNodes,
  checkFailMode,
  FailOver,
  localShareLimits,
  type FailMode,
  type FailOverReason,
  type ReasonedDecision,
} from '../core/fail-over.js';
import type { AsyncRateLimiter, WaitOptions } from '../core/limiter.js';
import { checkAlgorithm } from '../core/names.js';
import { checkCost, invalidOption } from '../core/options.js';
import type { Algorithm, Limits, NamedLimits, PolicyInput } from '../core/policy.js';
import { checkLimitList, tightestLimits } from '../core/limit-list.js';
import { createLimiter } from '../memory/limiter.js';
import { spreadRetry } from '../wait/jitter.js';
import { lazyWait, type WaitFn } from '../wait/key-waiters.js';

// The backend seam: what a limiter over a store other processes share (Redis, a cluster
// primary, any new one) has in common lives here once (option checks, the fail mode and its
// local share, the deny cache, the waiters); a backend writes only its store, a
// LimiterStore. docs/backends.md says how to add one.

/**
 * What a backend provides: its store's half of a limiter. Both calls get what the caller
 * passed, the cost already checked (a whole number >= 0).
 */
export interface LimiterStore<D extends ReasonedDecision> {
  /**
   * Takes `cost` units of `key` in the store and resolves with the decision, built by the
   * {@link StoreContext}'s answers: `decided` (the store's own), `unavailable` (it could not
   * answer in time: the fail mode's), `keyError` (the key's state is unusable), or `cached`
   * before asking at all. Rejects only when the call itself is refused (a bad key).
   */
  decide(key: string, cost: number): Promise<D>;
  /** Deletes `key`'s state; resolves whether the store held any, rejects when it cannot answer. */
  reset(key: string): Promise<boolean>;
  /** How long after a failure the store is worth asking again, in ms: the `closed` fail mode's wait. */
  readonly retryAfterMs: number;
}

/**
 * What the seam gives a store when it opens it: the checked policy, the clock, and the
 * answers. A store given several `policies` decides them all or nothing per key (every
 * limit admits, then every limit takes; a denial changes none) and answers with each
 * limit's own figures in `limits`, combined by `combineDecisions` (src/core/decision.ts).
 */
export interface StoreContext {
  readonly algorithm: Algorithm;
  /** The one policy's limits, or of several the tightest (least capacity; see `tightestLimits`). */
  readonly limits: Limits;
  /** Every limit the store decides together, named, in order (one for a single policy), as `checkLimitList` returns them. */
  readonly policies: readonly NamedLimits[];
  /** The `clock` option as a Clock; undefined when the store keeps its own time (Redis's TIME). */
  readonly clock: Clock | undefined;
  /** A denial the store gave earlier that still stands for `cost` (the deny cache), if any. */
  cached(key: string, cost: number): ReasonedDecision<'deny-cache'> | undefined;
  /** The store decided: remembers a denial for the deny cache, and returns `decision`. */
  decided<D extends Decision>(key: string, cost: number, decision: D): D;
  /**
   * The store could not answer (`error` says why: a timeout, the client's error): the fail
   * mode's decision, for several limits of all of them (`local`: a memory limiter of every
   * limit's share; `open`/`closed`: with each limit's answer in `limits`).
   */
  unavailable(key: string, cost: number, error: string): ReasonedDecision<FailOverReason>;
  /** The key's state in the store is unusable: the fail mode's decision, with reason `key-error` and the store's `error`. */
  keyError(key: string, cost: number, error: string): ReasonedDecision<'key-error'>;
}

/**
 * Options every backend on the seam takes (its own come beside them), events and shadow mode
 * among them ({@link ObservedOptions}: events carry `durationNs`, from the call to its
 * answer; a fail mode's decision is `failed-open` or `failed-closed` with the decision's
 * `error` as `failure`; in shadow mode a fail mode's denial is let through too).
 */
export interface StoreLimiterOptions extends ObservedOptions {
  /** What decides while the store cannot answer: `open` admits (default), `closed` denies, `local` decides in memory. */
  failMode?: FailMode;
  /** With `failMode: 'local'` (required there): the node count N; each node then allows `limit / N` (at least 1). */
  expectedNodes?: number;
  /** Cache the store's denials in process (`true`: up to 10 000 keys). Default off. */
  denyCache?: boolean | { maxKeys?: number };
  /** The time of the local share, the deny cache and the waits, in ms (default: the system clock, and the store's own time). */
  clock?: ClockSource;
}

/** How an error names what shares the limit (`expectedNodes`): nodes, or workers of one host. */
export interface StoreLimiterNaming {
  readonly members?: string;
}

/** A limiter over a store: {@link AsyncRateLimiter} with promises, and the fail mode it declares. */
export interface StoreRateLimiter<D extends Decision = ReasonedDecision> extends AsyncRateLimiter<D> {
  /** What decides while the store cannot answer (the `failMode` option); the HTTP middleware reads it. */
  readonly failMode: FailMode;
  /** Takes `cost` units (a whole number >= 0, default 1) for `key`; the `reason` says who decided. */
  consume(key: string, cost?: number): Promise<D>;
  /** `(await consume(key)).allowed`. */
  allow(key: string): Promise<boolean>;
  /**
   * Resolves with the decision that took `cost` units of `key`, like the memory limiter's
   * `wait` (first come first served within this process, one timer per waiting key,
   * `signal`, `maxWaitMs`), asking again at `retryAfterMs` plus a random 0-20% so that
   * processes do not return in lockstep. Across processes, order is best-effort: whoever
   * asks first once units are free gets them. An abort while a call for the waiter is in
   * flight drops its answer (units it took stay taken).
   */
  wait(key: string, cost?: number, options?: WaitOptions): Promise<D>;
  /** Deletes `key`'s state: its next request starts with a full quota. Resolves whether the store held any. */
  reset(key: string): Promise<boolean>;
}

const DEFAULT_DENY_CACHE_KEYS = 10_000;

/**
 * A limiter of `algorithm` enforcing `policy` (one policy, or a list of limits decided all
 * or nothing: the store gets them as `context.policies`) over the store `open` returns, given the
 * {@link StoreContext}. Checks the algorithm and policy (`UNKNOWN_ALGORITHM`,
 * `INVALID_POLICY`, `POLICY_TOO_LARGE`) and the options (`INVALID_ARGUMENT` naming the
 * option) before it opens the store.
 */
export function createStoreLimiter<D extends ReasonedDecision>(
  algorithm: Algorithm,
  policy: PolicyInput,
  options: StoreLimiterOptions,
  open: (context: StoreContext) => LimiterStore<D>,
): StoreRateLimiter<D> {
  return new StoreLimiter(checkAlgorithm(algorithm), policy, options, open);
}

/**
 * {@link createStoreLimiter}'s limiter; a backend that adds calls of its own extends it. It
 * is also the {@link StoreContext} its store answers with: `cached`, `decided`,
 * `unavailable` and `keyError` are the store's, not part of {@link StoreRateLimiter}.
 */
export class StoreLimiter<D extends ReasonedDecision, S extends LimiterStore<D> = LimiterStore<D>>
  implements StoreRateLimiter<D>, StoreContext
{
  readonly limits: Limits;
  readonly policies: readonly NamedLimits[];
  readonly failMode: FailMode;
  readonly clock: Clock | undefined;
  protected readonly store: S;
  private readonly failOver: FailOver;
  private readonly denials: DenyCache | undefined;
  private readonly localNow: Clock;
  /** `wait`: its queue is built on first use. */
  private readonly waitFor: WaitFn<D>;
  /** Listeners and shadow mode; the decision path asks only its `active`. */
  private readonly events: DecisionObserver;
  readonly name: string | undefined;
  readonly enforce: boolean;

  constructor(
    readonly algorithm: Algorithm,
    policy: PolicyInput,
    options: StoreLimiterOptions & StoreLimiterNaming,
    open: (context: StoreContext) => S,
  ) {
    this.policies = checkLimitList(algorithm, policy);
    this.limits = tightestLimits(this.policies);
    this.clock = options.clock === undefined ? undefined : toClock(options.clock);
    // The global `performance` (Node, Bun, Deno, workerd alike), not node:perf_hooks: `ratelab` imports no Node built-in.
    this.localNow = this.clock ?? (() => performance.now());
    this.failMode = checkFailMode(options.failMode ?? 'open');
    const nodes = checkExpectedNodes(this.failMode, options.expectedNodes, options.members);
    const local =
      nodes === undefined
        ? undefined
        : createLimiter(algorithm, localShareLimits(this.policies, nodes), this.clock ? { clock: this.clock } : {});
    this.denials = denyCacheOf(options.denyCache, this.limits.capacity);
    this.events = new DecisionObserver(checkObservedOptions(options), algorithm, this.policies, this.failMode);
    this.name = this.events.name;
    this.enforce = this.events.enforce;
    this.waitFor = lazyWait((k, c) => this.consume(k, c), {
      scheduler: schedulerOf(options.clock),
      capacity: this.events.enforce ? this.limits.capacity : undefined,
      jitter: spreadRetry,
    });
    this.store = open(this);
    this.failOver = new FailOver(this.failMode, this.limits.capacity, this.store.retryAfterMs, local, this.policies);
  }

  get listenerErrors(): number {
    return this.events.listenerErrors;
  }

  addDecisionListener(listener: DecisionListener): () => void {
    return this.events.add(listener);
  }

  addOutcomeCounter(counter: OutcomeCounter): () => void {
    return this.events.addCounter(counter);
  }

  consume(key: string, cost = 1): Promise<D> {
    try {
      checkCost(cost);
      if (!this.events.active) return this.store.decide(key, cost);
      const start = performance.now();
      return this.store
        .decide(key, cost)
        .then((decision) => this.events.settle(key, cost, decision, Math.round((performance.now() - start) * 1e6)));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  allow(key: string): Promise<boolean> {
    return this.consume(key).then(admitted);
  }

  wait(key: string, cost = 1, options?: WaitOptions): Promise<D> {
    return this.waitFor(key, cost, options);
  }

  async reset(key: string): Promise<boolean> {
    this.denials?.forget(key);
    this.failOver.forget(key);
    return this.store.reset(key);
  }

  cached(key: string, cost: number): ReasonedDecision<'deny-cache'> | undefined {
    const cached = this.denials?.lookup(key, cost, this.localNow());
    return cached === undefined ? undefined : { ...cached, reason: 'deny-cache' };
  }

  decided<R extends Decision>(key: string, cost: number, decision: R): R {
    this.denials?.remember(key, cost, decision, this.localNow());
    return decision;
  }

  unavailable(key: string, cost: number, error: string): ReasonedDecision<FailOverReason> {
    return { ...this.failOver.decide(key, cost), error };
  }

  keyError(key: string, cost: number, error: string): ReasonedDecision<'key-error'> {
    return { ...this.failOver.decide(key, cost), reason: 'key-error', error };
  }
}

function admitted(decision: Decision): boolean {
  return decision.allowed;
}

function denyCacheOf(option: StoreLimiterOptions['denyCache'], capacity: number): DenyCache | undefined {
  if (option === undefined || option === false) return undefined;
  const maxKeys = option === true ? DEFAULT_DENY_CACHE_KEYS : (option.maxKeys ?? DEFAULT_DENY_CACHE_KEYS);
  if (!Number.isInteger(maxKeys) || maxKeys < 1)
    throw invalidOption('denyCache.maxKeys', 'expected a whole number >= 1', maxKeys);
  return new DenyCache(maxKeys, capacity);
}
