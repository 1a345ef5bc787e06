import type { Scheduler } from '../core/clock.js';
import type { Decision } from '../core/decision.js';
import { RatelabError, describeValue } from '../core/errors.js';
import { MinHeap } from '../core/min-heap.js';
import { checkCost, checkKey } from '../core/options.js';
import { isThenable } from '../core/thenable.js';
import type { Consumer, WaitOptions } from '../core/limiter.js';

/** Options of `limiter.wait(key, cost, options)`. */
export type { WaitOptions } from '../core/limiter.js';

/** A limiter's decision call, synchronous (memory) or not (Redis): {@link Consumer}'s `consume`. */
export type ConsumeFn<D extends Decision> = Consumer<D>['consume'];

/** `wait(key, cost, options)` of a limiter: resolves with the decision that admitted the request. */
export type WaitFn<D extends Decision> = (key: string, cost: number, options?: WaitOptions) => Promise<D>;

/**
 * A limiter's `wait` over its `consume`: the {@link KeyWaiters} is built on the first call,
 * so a limiter nobody waits on holds no queue.
 */
export function lazyWait<D extends Decision>(consume: ConsumeFn<D>, timing: WaitTiming): WaitFn<D> {
  let waiters: KeyWaiters<D> | undefined;
  return (key, cost, options) => {
    waiters ??= new KeyWaiters(consume, timing);
    return waiters.wait(key, cost, options);
  };
}

/** How a {@link KeyWaiters} waits: its time and timers, and how much later than `retryAfterMs` to ask again. */
export interface WaitTiming {
  scheduler: Scheduler;
  /** The most a single request can take (the policy's capacity), when known: a larger cost is refused at once. */
  capacity?: number;
  /** Extra ms added to each retry (default none); Redis limiters spread a fleet's retries with it. */
  jitter?: (retryAfterMs: number) => number;
}

interface Waiter<D> {
  readonly line: Line<D>;
  readonly cost: number;
  /** Scheduler time after which it gives up (Infinity: never). */
  readonly deadline: number;
  readonly resolve: (decision: D) => void;
  readonly reject: (error: unknown) => void;
  readonly signal: AbortSignal | undefined;
  prev: Waiter<D> | undefined;
  next: Waiter<D> | undefined;
  /** Its index in the line's deadline heap; -1 when not in it (no deadline, or out of its line). */
  heapIndex: number;
}

/** The waiters of one key, first come first served, and the one timer that wakes the first. */
interface Line<D> {
  readonly key: string;
  head: Waiter<D> | undefined;
  tail: Waiter<D> | undefined;
  /** Cancels the timer, while one is set. */
  cancelTimer: (() => void) | undefined;
  /** Scheduler time the timer fires at (Infinity when none). */
  wakeAt: number;
  /** The waiter whose decision is being asked for (an asynchronous consume in flight). */
  asking: Waiter<D> | undefined;
  /**
   * The line's waiters with a finite deadline, soonest first (made on the first), so the
   * hopeless are found without a scan. Exactly the waiters still in line: one that leaves
   * (served, rejected, aborted) leaves the heap too, so it holds the queue, not the rate
   * times the longest maxWaitMs.
   */
  deadlines: MinHeap<Waiter<D>> | undefined;
}

/** The waiters of one signal, and the one listener that aborts them all (a listener per waiter would trip Node's leak warning past 10). */
interface SignalWatch<D> {
  readonly waiters: Set<Waiter<D>>;
  readonly onAbort: () => void;
}

/**
 * Waiting for a slot, over any limiter's `consume`: `wait(key, cost)` resolves with the
 * decision that took the units. Per key, waiters are served first come first served (a
 * later small request never overtakes an earlier large one); only the first is asked
 * about, when the `retryAfterMs` of its last denial has passed, so a key with waiters
 * holds exactly one timer and a served key none. No polling: a denial that says when to
 * come back is the only thing that schedules anything.
 */
export class KeyWaiters<D extends Decision> {
  private readonly lines = new Map<string, Line<D>>();
  private readonly watches = new WeakMap<AbortSignal, SignalWatch<D>>();

  constructor(
    private readonly consume: ConsumeFn<D>,
    private readonly timing: WaitTiming,
  ) {}

  /** Resolves with the decision that took `cost` units of `key`; see {@link WaitOptions} for how it ends otherwise. */
  wait(key: string, cost: number, options: WaitOptions = {}): Promise<D> {
    let maxWaitMs: number;
    try {
      checkKey(key);
      checkCost(cost);
      maxWaitMs = checkWaitOptions(options);
      const capacity = this.timing.capacity;
      if (capacity !== undefined && cost > capacity) throw overCapacity(key, cost);
    } catch (error) {
      return Promise.reject(error);
    }
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    return new Promise<D>((resolve, reject) => {
      const line = this.lineOf(key);
      const deadline = this.timing.scheduler.now() + maxWaitMs;
      const waiter: Waiter<D> = {
        line,
        cost,
        deadline,
        resolve,
        reject,
        signal,
        prev: line.tail,
        next: undefined,
        heapIndex: -1,
      };
      if (line.cancelTimer && line.wakeAt > deadline) {
        // The first in line cannot be served before wakeAt, so neither can this one.
        reject(tooLong(key, line.wakeAt - deadline + maxWaitMs, maxWaitMs));
        return;
      }
      this.append(line, waiter);
      if (line.head === waiter && line.asking === undefined) this.serve(line);
    });
  }

  /**
   * Asks again now for `key`'s first waiter, if it sleeps on a timer: for a consume whose
   * answer changed before the wait it last gave (the adaptive client, when a response
   * arrives). Does nothing for a key with no waiter or one being asked about.
   */
  wake(key: string): void {
    const line = this.lines.get(key);
    if (line?.head && line.asking === undefined && line.cancelTimer) this.serve(line);
  }

  /**
   * Entries held in every key's deadline heap: for tests and diagnostics (this class is
   * not exported from any entry), to check the heap holds the live waiters, no more.
   */
  get deadlineEntries(): number {
    let entries = 0;
    for (const line of this.lines.values()) entries += line.deadlines?.size ?? 0;
    return entries;
  }

  private lineOf(key: string): Line<D> {
    let line = this.lines.get(key);
    if (!line) {
      line = {
        key,
        head: undefined,
        tail: undefined,
        cancelTimer: undefined,
        wakeAt: Infinity,
        asking: undefined,
        deadlines: undefined,
      };
      this.lines.set(key, line);
    }
    return line;
  }

  private append(line: Line<D>, waiter: Waiter<D>): void {
    if (line.tail) line.tail.next = waiter;
    else line.head = waiter;
    line.tail = waiter;
    if (waiter.deadline !== Infinity) (line.deadlines ??= new MinHeap(soonerDeadline, placeWaiter)).push(waiter);
    if (waiter.signal) this.watch(waiter.signal).waiters.add(waiter);
  }

  private watch(signal: AbortSignal): SignalWatch<D> {
    let watch = this.watches.get(signal);
    if (!watch) {
      const waiters = new Set<Waiter<D>>();
      watch = { waiters, onAbort: () => this.abort(signal, waiters) };
      this.watches.set(signal, watch);
      signal.addEventListener('abort', watch.onAbort, { once: true });
    }
    return watch;
  }

  private unwatch(waiter: Waiter<D>): void {
    const signal = waiter.signal;
    const watch = signal && this.watches.get(signal);
    if (!signal || !watch) return;
    watch.waiters.delete(waiter);
    if (watch.waiters.size > 0) return;
    signal.removeEventListener('abort', watch.onAbort);
    this.watches.delete(signal);
  }

  /** Takes `waiter` out of its line and its deadline heap (it is settled by the caller). */
  private remove(line: Line<D>, waiter: Waiter<D>): void {
    line.deadlines?.removeAt(waiter.heapIndex);
    if (waiter.prev) waiter.prev.next = waiter.next;
    else line.head = waiter.next;
    if (waiter.next) waiter.next.prev = waiter.prev;
    else line.tail = waiter.prev;
    waiter.prev = waiter.next = undefined;
    this.unwatch(waiter);
    if (line.head === undefined && line.asking === undefined) {
      this.clearTimer(line);
      this.lines.delete(line.key);
    }
  }

  /**
   * Takes every waiter of `signal` out first, then asks about the new first waiter of
   * each line that lost its first (its timer was set for the aborted waiter's cost): so no
   * waiter of the aborted signal is served on the way.
   */
  private abort(signal: AbortSignal, waiters: Set<Waiter<D>>): void {
    this.watches.delete(signal);
    const reason = abortReason(signal);
    const moved = new Set<Line<D>>();
    for (const waiter of waiters) {
      const line = waiter.line;
      if (line.head === waiter) moved.add(line);
      this.remove(line, waiter);
      waiter.reject(reason);
    }
    for (const line of moved) {
      if (line.head && line.asking === undefined) this.serve(line);
    }
  }

  /**
   * Asks for the first waiter's units until one is denied (then sets the line's timer) or
   * the line is empty. A synchronous consume is answered in this loop; an asynchronous
   * one continues the loop when it answers.
   */
  private serve(line: Line<D>): void {
    this.clearTimer(line);
    for (let waiter = line.head; waiter; waiter = line.head) {
      let answer: D | PromiseLike<D>;
      try {
        answer = this.consume(line.key, waiter.cost);
      } catch (error) {
        this.remove(line, waiter);
        waiter.reject(error);
        continue;
      }
      if (isThenable(answer)) {
        this.askAsync(line, waiter, answer);
        return;
      }
      if (!this.settle(line, waiter, answer)) return;
    }
  }

  private askAsync(line: Line<D>, waiter: Waiter<D>, answer: PromiseLike<D>): void {
    line.asking = waiter;
    const resume = (settleWith: () => boolean) => {
      line.asking = undefined;
      // An abort while the call was in flight already took the waiter out: its answer
      // (units taken, if it admitted: the call cannot be undone) is dropped.
      if (line.head === waiter && !settleWith()) return;
      if (line.head) this.serve(line);
      else this.lines.delete(line.key);
    };
    answer.then(
      (decision) => resume(() => this.settle(line, waiter, decision)),
      (error: unknown) =>
        resume(() => {
          this.remove(line, waiter);
          waiter.reject(error);
          return true;
        }),
    );
  }

  /** Settles the first waiter with `decision`, or sets the timer for it; returns whether to go on to the next. */
  private settle(line: Line<D>, waiter: Waiter<D>, decision: D): boolean {
    if (decision.allowed) {
      this.remove(line, waiter);
      waiter.resolve(decision);
      return true;
    }
    const retryAfterMs = decision.retryAfterMs;
    if (!(retryAfterMs < Infinity)) {
      this.remove(line, waiter);
      waiter.reject(overCapacity(line.key, waiter.cost));
      return true;
    }
    const now = this.timing.scheduler.now();
    // A denial with no wait (a limiter's rounding) still waits 1 ms: never a busy loop.
    const earliest = now + Math.max(1, retryAfterMs);
    if (earliest > waiter.deadline) {
      this.remove(line, waiter);
      waiter.reject(tooLong(line.key, retryAfterMs, waiter.deadline - now));
      return true;
    }
    const delay = Math.min(earliest + (this.timing.jitter?.(retryAfterMs) ?? 0), waiter.deadline) - now;
    line.wakeAt = now + delay;
    line.cancelTimer = this.timing.scheduler.schedule(() => {
      line.cancelTimer = undefined;
      this.serve(line);
    }, delay);
    if (line.deadlines) this.dropHopeless(line, line.deadlines);
    return false;
  }

  /** Rejects the waiters behind the first whose deadline falls before the line's next wake-up. */
  private dropHopeless(line: Line<D>, deadlines: MinHeap<Waiter<D>>): void {
    const now = this.timing.scheduler.now();
    // The first waiter's own deadline is at or after wakeAt (settle saw to it), so it stays.
    for (let waiter = deadlines.peek(); waiter && waiter.deadline < line.wakeAt; waiter = deadlines.peek()) {
      this.remove(line, waiter);
      waiter.reject(tooLong(line.key, line.wakeAt - now, waiter.deadline - now));
    }
  }

  private clearTimer(line: Line<D>): void {
    line.cancelTimer?.();
    line.cancelTimer = undefined;
    line.wakeAt = Infinity;
  }
}

/**
 * Throws `INVALID_ARGUMENT` naming the field unless `options` are wait options: `maxWaitMs`
 * a number >= 0 (Infinity allowed; NaN not), `signal` an AbortSignal. Returns `maxWaitMs`
 * (Infinity when absent). `throttle` checks its own with it when it is made.
 */
export function checkWaitOptions(options: WaitOptions): number {
  if (typeof options !== 'object' || options === null) {
    throw new RatelabError('INVALID_ARGUMENT', `wait options: expected an object, got ${describeValue(options)}`, {
      field: 'options',
    });
  }
  const { maxWaitMs = Infinity, signal } = options;
  if (typeof maxWaitMs !== 'number' || Number.isNaN(maxWaitMs) || maxWaitMs < 0) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `maxWaitMs: expected a number of ms >= 0, got ${describeValue(maxWaitMs)}`,
      { field: 'maxWaitMs' },
    );
  }
  if (
    signal !== undefined &&
    !(
      typeof signal === 'object' &&
      signal !== null &&
      typeof signal.addEventListener === 'function' &&
      'aborted' in signal
    )
  ) {
    throw new RatelabError('INVALID_ARGUMENT', `signal: expected an AbortSignal, got ${describeValue(signal)}`, {
      field: 'signal',
    });
  }
  return maxWaitMs;
}

function placeWaiter<D>(waiter: Waiter<D>, index: number): void {
  waiter.heapIndex = index;
}

function soonerDeadline<D>(a: Waiter<D>, b: Waiter<D>): boolean {
  return a.deadline < b.deadline;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The wait was aborted', 'AbortError');
}

function overCapacity(key: string, cost: number): RatelabError {
  return new RatelabError(
    'COST_OVER_CAPACITY',
    `wait(${describeValue(key)}, ${cost}): the cost is more than the policy can ever admit at once`,
    { field: 'cost' },
  );
}

function tooLong(key: string, needMs: number, maxWaitMs: number): RatelabError {
  return new RatelabError(
    'WAIT_TOO_LONG',
    `wait(${describeValue(key)}): needs at least ${Math.ceil(needMs)} ms, more than maxWaitMs (${Math.max(0, Math.floor(maxWaitMs))} ms left)`,
    { field: 'maxWaitMs' },
  );
}
