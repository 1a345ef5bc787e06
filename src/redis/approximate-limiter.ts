import { schedulerOf, toClock, type Clock, type ClockSource } from '../core/clock.js';
import type { Decision } from '../core/decision.js';
import type { DecisionListener, OutcomeCounter, ObservedOptions } from '../core/decision-event.js';
import { checkObservedOptions, DecisionObserver } from '../core/decision-observer.js';
import type { AsyncRateLimiter } from '../core/limiter.js';
import { RatelabError } from '../core/errors.js';
import { checkCost, checkKey, invalidOption } from '../core/options.js';
import { checkPolicy, type Limits, type NamedLimits, type Policy } from '../core/policy.js';
import { namedLimits } from '../core/limit-list.js';
import { shareOf } from '../core/fail-over.js';

import { redisKeyOf } from './redis-key.js';
import { runScript, scriptClient, type RedisClient } from './run-script.js';
import { luaScript, readLua, type LuaScript } from './scripts.js';
import { withTimeout } from './timeout.js';
import { lazyWait, type WaitFn, type WaitOptions } from '../wait/key-waiters.js';

/** Options of {@link createApproximateLimiter}; events and shadow mode: {@link ObservedOptions} (events are synchronous: no `durationNs`). */
export interface ApproximateLimiterOptions extends ObservedOptions {
  redis: RedisClient;
  /** N, the number of nodes sharing the limit (a whole number >= 1). */
  expectedNodes: number;
  /** How often counts are pushed to Redis and budgets renewed, in ms (default 100). */
  syncMs?: number;
  /** Prepended to every key (default `ratelab:`). */
  prefix?: string;
  /** The node's clock (default: the system clock); windows are aligned to it. */
  clock?: ClockSource;
  /** Sync every `syncMs` on a timer (default true); false leaves it to calls of `sync()`. */
  autoSync?: boolean;
  /** The most a sync waits for Redis, in ms (default: syncMs). */
  timeoutMs?: number;
}

/**
 * A limiter that decides in process and shares its counts through Redis every `syncMs`: an
 * {@link AsyncRateLimiter} that decides at once and resets through Redis.
 */
export interface ApproximateLimiter extends AsyncRateLimiter<Decision> {
  /** Always `fixed-window`: counts per window are what the nodes share. */
  readonly algorithm: 'fixed-window';
  readonly limits: Limits;
  /** Decides locally, without a network call. Throws `INVALID_COST` or `INVALID_KEY` (a key that is not a string) like the memory limiter. */
  consume(key: string, cost?: number): Decision;
  /** `consume(key, 1).allowed`. */
  allow(key: string): boolean;
  /**
   * Resolves with the decision that took `cost` units of `key`, once this node's budget
   * has them (see `RateLimiter.wait`; the budget grows at a sync or a new window).
   */
  wait(key: string, cost?: number, options?: WaitOptions): Promise<Decision>;
  /**
   * Forgets `key` on this node and deletes its shared count in Redis (other nodes see that
   * at their next sync); resolves whether either held it. Rejects when Redis does not answer
   * within `timeoutMs`.
   */
  reset(key: string): Promise<boolean>;
  /** Pushes this node's new counts and renews its budgets now; never rejects (a failed sync keeps the old budgets). */
  sync(): Promise<void>;
  /** Stops the sync timer. */
  close(): void;
}

interface KeyState {
  window: number;
  /** Units this node may admit until the next sync renews it. */
  budget: number;
  /** Units admitted against `budget`. */
  spent: number;
  /** Units admitted and not yet sent to Redis. */
  unsent: number;
  /** The window's global total at the last sync, or -1 before the first. */
  known: number;
  /** Asked about since the last sync: only such keys are synced (an idle key costs nothing). */
  touched: boolean;
}

let syncScript: LuaScript | undefined;

/**
 * Local + global, approximately: each node decides in memory, per key and per fixed
 * window of `windowMs` (aligned to the node's clock), with no network call on the request
 * path. Until a key's first sync in a window the node allows its share, `limit / N`.
 * Every `syncMs` it adds what it admitted to the key's count in Redis, reads back the
 * window's total `G`, and may admit `(limit - G) / N` more until the next sync: nodes with
 * traffic share what is left, instead of idle nodes' shares being lost (the false denials
 * of a fixed `limit / N` split under skewed balancing).
 *
 * Error bound: a budget is computed from a total that lacks what the other nodes admitted
 * since their own last sync, so a window can over-admit by up to about what the whole fleet
 * admits in one `syncMs` (tested); and a node that first sees a key late in a window may
 * admit its `limit / N` share before its first sync tells it the window is spent. If Redis is down, budgets are not renewed: each node stays within its last
 * budget, which only under-admits. One policy only: a list of limits is refused
 * (`INVALID_POLICY`; the exact limiter, createRedisLimiter, takes lists).
 */
export function createApproximateLimiter(policy: Policy, options: ApproximateLimiterOptions): ApproximateLimiter {
  if (Array.isArray(policy)) {
    throw new RatelabError(
      'INVALID_POLICY',
      'policy: the approximate limiter shares one fixed-window count per key, not a list of limits; use createRedisLimiter for several limits on a key',
      { field: 'policy' },
    );
  }
  return new Approximate(checkPolicy(policy, 'fixed-window'), options);
}

class Approximate implements ApproximateLimiter {
  readonly algorithm = 'fixed-window';
  readonly policies: readonly NamedLimits[];
  private readonly states = new Map<string, KeyState>();
  private readonly clock: Clock;
  private readonly nodes: number;
  private readonly keyPrefix: string;
  private readonly syncMs: number;
  private readonly timeoutMs: number;
  private readonly timer: ReturnType<typeof setInterval> | undefined;
  private syncing: Promise<void> | undefined;
  /** `wait`: its queue is built on first use. */
  private readonly waitFor: WaitFn<Decision>;
  /** Listeners and shadow mode; the decision path asks only its `active`. */
  private readonly events: DecisionObserver;

  constructor(
    readonly limits: Limits,
    private readonly options: ApproximateLimiterOptions,
  ) {
    this.policies = [namedLimits('fixed-window', limits)];
    this.nodes = options.expectedNodes;
    if (!Number.isInteger(this.nodes) || this.nodes < 1)
      throw invalidOption('expectedNodes', 'expected a whole number >= 1', this.nodes);
    this.syncMs = options.syncMs ?? 100;
    if (!Number.isInteger(this.syncMs) || this.syncMs < 1)
      throw invalidOption('syncMs', 'expected a whole number of ms >= 1', options.syncMs);
    this.timeoutMs = options.timeoutMs ?? this.syncMs;
    this.clock = toClock(options.clock);
    this.events = new DecisionObserver(checkObservedOptions(options), this.algorithm, this.policies);
    this.waitFor = lazyWait((k, c) => this.consume(k, c), {
      scheduler: schedulerOf(options.clock),
      capacity: this.events.enforce ? limits.limit : undefined,
    });
    this.keyPrefix = `${options.prefix ?? 'ratelab:'}approx:${limits.limit}:${limits.windowMs}:`;
    syncScript ??= luaScript('approximate-sync', readLua('approximate-sync'));
    if (options.autoSync ?? true) {
      this.timer = setInterval(() => void this.sync(), this.syncMs);
      this.timer.unref();
    }
  }

  consume(key: string, cost = 1): Decision {
    checkCost(cost);
    checkKey(key);
    const now = this.clock();
    const state = this.stateOf(key, now);
    state.touched = true;
    const { limit, windowMs } = this.limits;
    const endsIn = Math.ceil((state.window + 1) * windowMs - now);
    const allowed = state.spent + cost <= state.budget;
    if (allowed) {
      state.spent += cost;
      state.unsent += cost;
    }
    const used = Math.max(state.known, 0) + state.unsent;
    const decision: Decision = {
      allowed,
      limit,
      remaining: Math.max(0, state.budget - state.spent),
      retryAfterMs: allowed
        ? 0
        : cost > limit
          ? Infinity
          : used + cost <= limit
            ? Math.min(this.syncMs, endsIn)
            : endsIn,
      resetMs: used > 0 ? endsIn : 0,
    };
    return this.events.active ? this.events.settle(key, cost, decision) : decision;
  }

  get name(): string | undefined {
    return this.events.name;
  }

  get enforce(): boolean {
    return this.events.enforce;
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

  allow(key: string): boolean {
    return this.consume(key).allowed;
  }

  wait(key: string, cost = 1, options?: WaitOptions): Promise<Decision> {
    return this.waitFor(key, cost, options);
  }

  async reset(key: string): Promise<boolean> {
    checkKey(key);
    const held = this.states.delete(key);
    const deleted = await withTimeout(
      scriptClient(this.options.redis).del(redisKeyOf(this.keyPrefix + key)),
      this.timeoutMs,
    );
    return held || Number(deleted) > 0;
  }

  sync(): Promise<void> {
    this.syncing ??= this.pushAll().finally(() => {
      this.syncing = undefined;
    });
    return this.syncing;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
  }

  private stateOf(key: string, now: number): KeyState {
    const window = Math.floor(now / this.limits.windowMs);
    let state = this.states.get(key);
    if (state === undefined || state.window < window) {
      state = { window, budget: shareOf(this.limits.limit, this.nodes), spent: 0, unsent: 0, known: -1, touched: true };
      this.states.set(key, state);
    }
    return state;
  }

  private async pushAll(): Promise<void> {
    const current = Math.floor(this.clock() / this.limits.windowMs);
    const pushes: Promise<void>[] = [];
    for (const [key, state] of this.states) {
      if (state.window < current) this.states.delete(key);
      else if (state.touched) pushes.push(this.push(key, state));
    }
    await Promise.all(pushes);
  }

  /** Sends one key's new count; on the reply, renews its budget to its share of what is left. */
  private async push(key: string, state: KeyState): Promise<void> {
    const delta = state.unsent;
    state.unsent = 0;
    state.touched = false;
    const ttl = Math.ceil((state.window + 1) * this.limits.windowMs - this.clock());
    let total: number;
    try {
      const reply = await withTimeout(
        runScript(
          this.options.redis,
          syncScript as LuaScript,
          [redisKeyOf(this.keyPrefix + key)],
          [state.window, delta, Math.max(ttl, 1)],
        ),
        this.timeoutMs,
      );
      total = Number(reply);
    } catch {
      state.unsent += delta; // sent again next time; the old budget stands
      state.touched = true;
      return;
    }
    if (total < 0 || this.states.get(key) !== state) return;
    state.known = total;
    // What was admitted while the reply travelled is spent from the new budget.
    state.spent = state.unsent;
    state.budget = shareOf(this.limits.limit - total, this.nodes);
  }
}
