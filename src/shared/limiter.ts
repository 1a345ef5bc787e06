import type { CompositeMeter, Meter } from '../algorithms/index.js';
import { readClock, schedulerOf, toClock, type Clock, type ClockSource } from '../core/clock.js';
import { decisionOf, type DecideFn, type Decision } from '../core/decision.js';
import type { DecisionListener, OutcomeCounter, ObservedOptions } from '../core/decision-event.js';
import { checkObservedOptions, DecisionObserver } from '../core/decision-observer.js';
import { advanceKeyTime } from '../core/key-time.js';
import { RatelabError, describeValue } from '../core/errors.js';
import type { RateLimiter } from '../memory/limiter.js';
import { positiveOption, wholeNumber, checkCost, checkKey } from '../core/options.js';
import { checkAlgorithm } from '../core/names.js';
import type { Algorithm, LimitSpec, Limits, NamedLimits, Policy, PolicyInput } from '../core/policy.js';
import { checkLimitList, limitListDifference, tightestLimits } from '../core/limit-list.js';
import { describeBuffer, initialise, openHandle, specOf, type SharedLimiterHandle } from './handle.js';
import { KeyCodec } from './key-codec.js';
import { SharedKeyTable } from './key-table.js';
import { HEADER, ROW_CHUNK, SLOT_WORDS, layout, layoutBytes, type Layout } from './layout.js';
import { LockTokens } from './lock-words.js';
import { createLocking, type LockingMode } from './locking.js';
import { lazyWait, type WaitFn, type WaitOptions } from '../wait/key-waiters.js';

/**
 * Options of {@link attachSharedLimiter}: each thread has its own clock, and its own
 * listeners and shadow mode ({@link ObservedOptions}: a thread in shadow takes state as one
 * enforcing would, so threads may differ).
 */
export interface AttachOptions extends ObservedOptions {
  /** Where time comes from, in milliseconds (default: the system clock, never stepping back). */
  clock?: ClockSource;
  /**
   * What this thread expects the limiter to enforce (default: whatever the handle says):
   * attaching to a limiter of other limits throws `INVALID_POLICY` naming the first entry
   * and field that differ (`policy[1].windowMs: the shared limiter enforces 3600000, this
   * thread asked for 60000`).
   */
  policy?: PolicyInput;
}

/** Options of {@link createSharedLimiter}. */
export interface SharedLimiterOptions extends Omit<AttachOptions, 'policy'> {
  /**
   * The most live keys (required; whole number 1 to 2^24): the buffer is sized for them up
   * front, and is at most `MAX_BUFFER_BYTES` (1 GiB) whatever the options.
   */
  maxKeys: number;
  /** The longest key, in UTF-8 bytes (default 128, at most 4096); a longer key throws `INVALID_KEY`. */
  maxKeyBytes?: number;
  /**
   * A key untouched this long (ms) may be dropped to make room (default, and minimum: the
   * time the algorithm needs to return to full quota, so dropping changes no decision).
   */
  idleMs?: number;
  /** A lock held this long (ms) is taken for abandoned by a dead thread and taken over (default 1000, at least 10). */
  lockLeaseMs?: number;
  /** `per-key` (default), or `global`: one lock for the whole table, only to measure against. */
  locking?: LockingMode;
}

/** A limiter whose state every attached thread shares. */
export interface SharedRateLimiter extends RateLimiter {
  /** Pass it to other threads (`postMessage`, `workerData`) and attach there. */
  readonly handle: SharedLimiterHandle;
}

/** Probe bound: a key lives within this many slots of its home (fewer when the table is smaller). */
export const PROBE_LIMIT = 32;
const DEFAULT_KEY_BYTES = 128;
const DEFAULT_LEASE_MS = 1000;

/**
 * Creates a limiter of `algorithm` enforcing `policy` (one policy, or a list of limits
 * decided all or nothing under the key's one lock, as `createLimiter` takes) whose state
 * lives in a SharedArrayBuffer: `attachSharedLimiter(limiter.handle)` in worker threads gives each a
 * limiter deciding on the same state, synchronously, per-key locked. Decisions are the
 * memory limiter's for the same sequence of calls per key, whichever threads make them.
 * Throws `UNKNOWN_ALGORITHM`, `INVALID_POLICY` or `INVALID_ARGUMENT` (naming the option), and
 * `POLICY_TOO_LARGE` naming the bytes it would need when the buffer would be over
 * `MAX_BUFFER_BYTES`, 1 GiB (see docs/shared.md).
 */
export function createSharedLimiter(
  algorithm: Algorithm,
  policy: PolicyInput,
  options: SharedLimiterOptions,
): SharedRateLimiter {
  const name = checkAlgorithm(algorithm);
  const policies = checkLimitList(name, policy);
  const maxKeys = wholeNumber(options?.maxKeys, 'maxKeys', 1, 2 ** 24);
  const maxKeyBytes = checkMaxKeyBytes(options.maxKeyBytes);
  const slots = 2 ** Math.ceil(Math.log2(2 * maxKeys));
  const spec = { algorithm: name, policies, maxKeys, slots, maxKeyBytes };
  const buffer = new SharedArrayBuffer(layoutBytes(spec));
  const view = layout(spec, buffer);
  initialise(view);
  const handle: SharedLimiterHandle = {
    kind: 'ratelab.shared-limiter',
    buffer,
    algorithm: name,
    policy: handlePolicy(policy, policies),
    maxKeys,
    slots,
    maxKeyBytes,
    idleMs: Math.max(positiveOption(options.idleMs, 'idleMs', view.meter.fullAfterMs), view.meter.fullAfterMs),
    lockLeaseMs: Math.max(10, positiveOption(options.lockLeaseMs, 'lockLeaseMs', DEFAULT_LEASE_MS)),
    locking: lockingMode(options.locking),
  };
  describeBuffer(handle);
  return new SharedLimiter(handle, view, options);
}

/**
 * This thread's limiter over the state of `handle` (from {@link createSharedLimiter}, passed
 * by `postMessage` or `workerData`). Throws `INVALID_ARGUMENT` for anything else.
 */
export function attachSharedLimiter(handle: SharedLimiterHandle, options: AttachOptions = {}): SharedRateLimiter {
  const limiter = new SharedLimiter(handle, openHandle(handle), options);
  if (options.policy !== undefined) {
    const asked = checkLimitList(limiter.algorithm, options.policy);
    const difference = limitListDifference(limiter.policies, asked);
    if (difference)
      throw new RatelabError(
        'INVALID_POLICY',
        `${difference.field}: the shared limiter enforces ${difference.enforced}, this thread asked for ${difference.asked}`,
        { field: difference.field },
      );
  }
  return limiter;
}

/**
 * The handle's `policy`: one policy as given (`burst` only if given), or every limit of a
 * list with its name and algorithm filled in, so the buffer's description says them all.
 */
function handlePolicy(policy: PolicyInput, policies: readonly NamedLimits[]): Policy | LimitSpec[] {
  const withBurst = <T extends Policy>(entry: T, burst: number | undefined): T =>
    burst === undefined ? entry : { ...entry, burst };
  const [first] = policies as [NamedLimits];
  if (!Array.isArray(policy))
    return withBurst({ limit: first.limit, windowMs: first.windowMs }, (policy as Policy).burst);
  const list = policy as readonly LimitSpec[];
  return policies.map((entry, i) =>
    withBurst(
      { name: entry.name, algorithm: entry.algorithm, limit: entry.limit, windowMs: entry.windowMs },
      list[i]?.burst,
    ),
  );
}

class SharedLimiter implements SharedRateLimiter {
  readonly algorithm: Algorithm;
  readonly limits: Limits;
  readonly policies: readonly NamedLimits[];
  readonly stateBytesPerKey: number;
  private readonly meter: Meter;
  private readonly decideRow: DecideFn;
  private readonly touched: Float64Array;
  private readonly codec: KeyCodec;
  private readonly table: SharedKeyTable;
  private readonly clock: Clock;
  /** `wait`: its queue is built on first use. */
  private readonly waitFor: WaitFn<Decision>;
  private readonly locks;
  /** Listeners and shadow mode (this thread's); the decision path asks only its `active`. */
  private readonly events: DecisionObserver;

  constructor(
    readonly handle: SharedLimiterHandle,
    view: Layout,
    options: ObservedOptions & { clock?: ClockSource | undefined },
  ) {
    const spec = specOf(handle);
    const { clock } = options;
    this.algorithm = spec.algorithm;
    this.policies = spec.policies;
    this.limits = tightestLimits(spec.policies);
    this.meter = view.meter;
    this.decideRow = decisionOf(this.meter, this.policies, this.limits);
    this.touched = view.touched;
    this.clock = toClock(clock);
    this.events = new DecisionObserver(checkObservedOptions(options), this.algorithm, this.policies);
    this.waitFor = lazyWait((k, c) => this.consume(k, c), {
      scheduler: schedulerOf(clock),
      capacity: this.events.enforce ? this.limits.capacity : undefined,
    });
    this.codec = new KeyCodec(spec.maxKeyBytes);
    const tokens = new LockTokens(Atomics.add(view.header, HEADER.members, 1) + 1);
    this.locks = createLocking(handle.locking, view, handle.lockLeaseMs, tokens);
    const probe = Math.min(PROBE_LIMIT, spec.slots);
    this.table = new SharedKeyTable(view, this.locks, this.codec, spec.maxKeyBytes, probe, handle.idleMs, this.repair);
    // Per row: the meter's columns, time, key bytes and length, a stack entry, a lock, its
    // share of its chunk's fill word; per row two to four slots of SLOT_WORDS 32-bit words.
    this.stateBytesPerKey =
      this.meter.bytesPerSlot +
      8 +
      spec.maxKeyBytes +
      8 +
      4 +
      4 / ROW_CHUNK +
      (spec.slots / spec.maxKeys) * SLOT_WORDS * 4;
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
    return this.decide(key, 1, false) as boolean;
  }

  /**
   * `allow` with events: a counter alone counts the bare answer; anything else (a listener,
   * shadow mode, a counter's `denied` hook, which needs the denial's Decision made under the
   * same lock) goes through `consume`.
   */
  private observedAllow(key: string): boolean {
    if (!this.events.countOnly || this.events.denialsTold) return this.consume(key, 1).allowed;
    checkKey(key);
    const allowed = this.decide(key, 1, false) as boolean;
    this.events.countBare(allowed);
    return allowed;
  }

  /** Listeners are told after the key's lock is released: one that calls this limiter again cannot deadlock. */
  consume(key: string, cost = 1): Decision {
    checkCost(cost);
    checkKey(key);
    const decision = this.decide(key, cost, true) as Decision;
    return this.events.active ? this.events.settle(key, cost, decision) : decision;
  }

  /** Waits in this thread, first come first served per key (see RateLimiter.wait); across threads, best-effort. */
  wait(key: string, cost = 1, options?: WaitOptions): Promise<Decision> {
    return this.waitFor(key, cost, options);
  }

  /** The decision under the key's lock: in full, or (`allow`) only whether it was admitted. */
  private decide(key: string, cost: number, full: boolean): Decision | boolean {
    const now = readClock(this.clock);
    const hash = this.codec.encode(key);
    this.locks.enter();
    try {
      this.table.acquire(hash, now);
      try {
        const row = this.table.row;
        const at = this.advance(row, now);
        return full ? this.decideRow(row, at, cost) : this.meter.take(row, at, cost);
      } finally {
        this.table.release();
      }
    } finally {
      this.locks.leave();
    }
  }

  prune(): number {
    const now = readClock(this.clock);
    this.locks.enter();
    try {
      return this.table.prune(now);
    } finally {
      this.locks.leave();
    }
  }

  reset(key: string): boolean {
    checkKey(key);
    const hash = this.codec.encode(key);
    this.locks.enter();
    try {
      return this.table.delete(hash);
    } finally {
      this.locks.leave();
    }
  }

  /**
   * Brings `row` to the key's time ({@link advanceKeyTime}: it never moves backwards, so a
   * thread with a clock behind another's cannot add admissions) and returns that time.
   */
  private advance(row: number, now: number): number {
    if (this.table.fresh) {
      this.meter.init(row, now);
      this.touched[row] = now;
      return now;
    }
    const at = advanceKeyTime(this.meter, row, this.touched[row] as number, now);
    this.touched[row] = at;
    return at;
  }

  /**
   * A dead holder may have left the row half-written. It restarts as if its whole quota
   * was used at its last time: never an admission the memory limiter would not make, at
   * the cost of denying that one key for up to a window (of several limits, every limit
   * spent: up to the longest window).
   */
  private readonly repair = (row: number): void => {
    const at = Math.max(this.touched[row] as number, 0);
    this.meter.init(row, at);
    const parts = this.policies.length === 1 ? [this.meter] : (this.meter as CompositeMeter).parts;
    parts.forEach((part, i) => {
      const { capacity } = this.policies[i] as NamedLimits;
      if (Number.isFinite(capacity)) part.take(row, at, capacity);
    });
  };
}

/** `maxKeyBytes` as an option: default 128, else a whole number from 1 to 4096 (`INVALID_ARGUMENT`). */
export function checkMaxKeyBytes(value: unknown): number {
  return value === undefined ? DEFAULT_KEY_BYTES : wholeNumber(value, 'maxKeyBytes', 1, 4096);
}

function lockingMode(mode: unknown): LockingMode {
  if (mode === undefined || mode === 'per-key' || mode === 'global') return mode ?? 'per-key';
  throw new RatelabError('INVALID_ARGUMENT', `locking: expected 'per-key' or 'global', got ${describeValue(mode)}`, {
    field: 'locking',
  });
}
