import { createLimitsMeter, type KeyState, type Meter } from '../algorithms/index.js';
import { readClock, schedulerOf, toClock, type Clock, type ClockSource } from '../core/clock.js';
import { decisionOf, type Decision, type DecideFn } from '../core/decision.js';
import type { DecisionListener, OutcomeCounter, ObservedOptions } from '../core/decision-event.js';
import { checkObservedOptions, DecisionObserver } from '../core/decision-observer.js';
import { advanceKeyTime } from '../core/key-time.js';
import type { AsyncRateLimiter } from '../core/limiter.js';
import { RatelabError } from '../core/errors.js';
import { positiveOption, checkCost, checkKey } from '../core/options.js';
import { checkAlgorithm } from '../core/names.js';
import { checkLimitList, tightestLimits } from '../core/limit-list.js';
import type { Algorithm, Limits, NamedLimits, PolicyInput } from '../core/policy.js';
import { lazyWait, type WaitFn, type WaitOptions } from '../wait/key-waiters.js';
import { SlotTable } from './slot-table.js';

/** Options of {@link createLimiter}; events and shadow mode: {@link ObservedOptions}. */
export interface LimiterOptions extends ObservedOptions {
  /** Where time comes from, in milliseconds (default: the system clock, never stepping back). */
  clock?: ClockSource;
  /**
   * Drop a key untouched for this many ms (default, and minimum: the time the algorithm
   * needs to return to full quota, so dropping a key never changes a decision).
   * `Infinity` keeps keys forever.
   */
  idleMs?: number;
  /**
   * At most this many live keys (default: no cap). At the cap the least recently used key
   * is dropped even if it is not idle, which forgets its usage: size it well above the
   * number of keys active within one window.
   */
  maxKeys?: number;
}

/** A rate limiter: independent state per key, one decision per call, O(1) per decision; the {@link AsyncRateLimiter} that answers at once. */
export interface RateLimiter extends AsyncRateLimiter<Decision> {
  readonly algorithm: Algorithm;
  readonly limits: Limits;
  /** Number of live keys. */
  readonly size: number;
  /**
   * Bytes of typed-array state per key: the algorithm's columns, 8 B of last-use time and,
   * with `maxKeys`, 8 B of LRU links. Excludes the Map entry (about 30 B) and the key string.
   */
  readonly stateBytesPerKey: number;
  /**
   * Shorthand for `consume(key, 1).allowed`, without building the Decision (unless a
   * listener is to be told of it); true in shadow mode. Throws `INVALID_KEY` unless `key` is a string.
   */
  allow(key: string): boolean;
  /**
   * Takes `cost` units (a whole number >= 0, default 1; 0 only asks) for `key` (a string) now.
   * Throws `INVALID_COST` or `INVALID_KEY` for anything else.
   */
  consume(key: string, cost?: number): Decision;
  /**
   * Resolves with the Decision that took `cost` units of `key`, once they can be taken.
   * Waiters of one key are served first come first served; a key with waiters holds one
   * timer, set from `retryAfterMs` (on a ManualClock: the clock's timers, fired by
   * `advance`). Rejects at once with `COST_OVER_CAPACITY` (never admissible),
   * `WAIT_TOO_LONG` (past `maxWaitMs`), `INVALID_COST`/`INVALID_KEY`, or with
   * `signal.reason` when aborted (nothing taken, the next waiter goes first).
   * In shadow mode it never waits: it resolves at once with one `consume`'s decision
   * (admitted, or a shadow denial), whatever the cost.
   */
  wait(key: string, cost?: number, options?: WaitOptions): Promise<Decision>;
  /** Drops every idle key now; returns how many were dropped. */
  prune(): number;
  /** Forgets `key`: its next request starts with a full quota. Returns whether it was live. Throws `INVALID_KEY` unless `key` is a string. */
  reset(key: string): boolean;
  /**
   * Reads what the algorithm holds for `key` as of now (see {@link KeyState}), changing
   * nothing (not even the key's last use): undefined when the key is not live (it would start
   * with a full quota) or the limiter enforces several limits. For showing the state (the
   * playground's views); not for deciding: O(1), the sliding log O(units held). The in-memory
   * limiter (`createLimiter`) has it; limiters built on it elsewhere (ratelab/shared) do not.
   */
  inspect?(key: string): KeyState | undefined;
}

/**
 * Creates an in-memory limiter of `algorithm` enforcing `policy`: one policy, or a list of
 * limits enforced all at once (`[{ limit: 20, windowMs: 1000 }, { limit: 1000, windowMs:
 * 3_600_000 }]`: admitted only if every limit admits, then every limit takes the cost; each
 * entry may name its own `algorithm` and a `name`). Throws `UNKNOWN_ALGORITHM`,
 * `INVALID_POLICY` (naming the field, `policy[1].limit` in a list) or `INVALID_ARGUMENT`.
 */
export function createLimiter(algorithm: Algorithm, policy: PolicyInput, options: LimiterOptions = {}): RateLimiter {
  return new MemoryLimiter(checkAlgorithm(algorithm), policy, options);
}

class MemoryLimiter implements RateLimiter {
  readonly limits: Limits;
  readonly policies: readonly NamedLimits[];
  readonly stateBytesPerKey: number;
  private readonly meter: Meter;
  private readonly decide: DecideFn;
  private readonly table: SlotTable;
  private readonly clock: Clock;
  /** `wait`: its queue is built on first use. */
  private readonly waitFor: WaitFn<Decision>;
  /** Listeners and shadow mode; the decision path asks only its `active`. */
  private readonly events: DecisionObserver;

  constructor(
    readonly algorithm: Algorithm,
    policy: PolicyInput,
    options: LimiterOptions,
  ) {
    this.policies = checkLimitList(algorithm, policy);
    this.limits = tightestLimits(this.policies);
    this.meter = createLimitsMeter(this.policies);
    this.decide = decisionOf(this.meter, this.policies, this.limits);
    this.clock = toClock(options.clock);
    this.events = new DecisionObserver(checkObservedOptions(options), algorithm, this.policies);
    this.waitFor = lazyWait((k, c) => this.consume(k, c), {
      scheduler: schedulerOf(options.clock),
      capacity: this.events.enforce ? this.limits.capacity : undefined,
    });
    const idleMs = Math.max(positiveOption(options.idleMs, 'idleMs', this.meter.fullAfterMs), this.meter.fullAfterMs);
    const maxKeys = positiveOption(options.maxKeys, 'maxKeys', Infinity);
    if (maxKeys !== Infinity && !Number.isInteger(maxKeys)) {
      throw new RatelabError('INVALID_ARGUMENT', `maxKeys: expected a whole number >= 1, got ${maxKeys}`, {
        field: 'maxKeys',
      });
    }
    this.table = new SlotTable(this.meter, idleMs, maxKeys);
    this.stateBytesPerKey = this.meter.bytesPerSlot + 8 + (maxKeys === Infinity ? 0 : 8);
  }

  get size(): number {
    return this.table.size;
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
    if (this.events.active) return this.observedAllow(key);
    checkKey(key);
    const slot = this.slotFor(key, readClock(this.clock));
    return this.meter.take(slot, this.table.touched[slot] as number, 1);
  }

  consume(key: string, cost = 1): Decision {
    checkCost(cost);
    checkKey(key);
    const slot = this.slotFor(key, readClock(this.clock));
    const decision = this.decide(slot, this.table.touched[slot] as number, cost);
    return this.events.active ? this.events.settle(key, cost, decision) : decision;
  }

  wait(key: string, cost = 1, options?: WaitOptions): Promise<Decision> {
    return this.waitFor(key, cost, options);
  }

  prune(): number {
    return this.table.prune(readClock(this.clock));
  }

  reset(key: string): boolean {
    checkKey(key);
    return this.table.delete(key);
  }

  inspect(key: string): KeyState | undefined {
    checkKey(key);
    const slot = this.table.find(key);
    if (slot < 0 || this.meter.inspect === undefined) return undefined;
    const last = this.table.touched[slot] as number;
    return this.meter.inspect(slot, last, Math.max(readClock(this.clock), last));
  }

  /** The slot of `key`, its state brought forward to the key's time (see {@link advanceKeyTime}). */
  private slotFor(key: string, now: number): number {
    this.table.sweep(now, 2);
    const slot = this.table.find(key);
    if (slot < 0) return this.addKey(key, now);
    const at = advanceKeyTime(this.meter, slot, this.table.touched[slot] as number, now);
    this.table.use(slot, at);
    return slot;
  }

  /**
   * `allow` with events: the Decision is built only for what needs it (a listener, shadow
   * mode, a counter's `denied` hook); a counter alone counts the bare answer.
   */
  private observedAllow(key: string): boolean {
    if (!this.events.countOnly) return this.consume(key, 1).allowed;
    checkKey(key);
    const slot = this.slotFor(key, readClock(this.clock));
    const at = this.table.touched[slot] as number;
    const allowed = this.meter.take(slot, at, 1);
    // A denial took nothing, so deciding again gives the same denial, in full, for the hooks that take its event.
    if (!allowed && this.events.denialsTold) this.events.settle(key, 1, this.decide(slot, at, 1));
    else this.events.countBare(allowed);
    return allowed;
  }

  /** Kept out of `slotFor` so the path taken by every known key stays small enough to inline. */
  private addKey(key: string, now: number): number {
    const slot = this.table.add(key, now);
    this.meter.init(slot, now);
    return slot;
  }
}
