import { RatelabError, describeValue } from './errors.js';
import { MinHeap } from './min-heap.js';

/** A clock returns the current time in milliseconds. Limiters read time only through one. */
export type Clock = () => number;

/** Anything with a `now()` method (a {@link ManualClock}) can stand in for a clock. */
export type ClockSource = Clock | { now(): number };

/**
 * Where waits (`limiter.wait`) get their time and timers: `now()` in ms, and
 * `schedule(callback, delayMs)`, which calls `callback` once `delayMs` ms have passed and
 * returns a function that cancels it. A {@link ManualClock} is one (its timers fire as it
 * is advanced); {@link realScheduler} is the other.
 */
export interface Scheduler {
  now(): number;
  schedule(callback: () => void, delayMs: number): () => void;
}

/** setTimeout's largest delay (2^31 - 1 ms, about 24.8 days); a longer one would fire at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Real time: `performance.now()` and `setTimeout`. A delay past setTimeout's 24.8-day
 * range fires at the range's end (a waiter then asks again), never at once.
 */
export const realScheduler: Scheduler = {
  now: () => performance.now(),
  schedule(callback, delayMs) {
    const timer = setTimeout(callback, Math.min(Math.max(delayMs, 0), MAX_TIMER_MS));
    return () => clearTimeout(timer);
  },
};

/**
 * The scheduler of a clock source: the source itself when it schedules (a
 * {@link ManualClock}), else real time. A clock function that is not real time, with real
 * timers, would leave waits to poll forever: use a ManualClock for virtual time.
 */
export function schedulerOf(source: ClockSource | undefined): Scheduler {
  if (typeof source === 'object' && source !== null && typeof (source as Partial<Scheduler>).schedule === 'function')
    return source as Scheduler;
  return realScheduler;
}

/**
 * The system clock in epoch milliseconds, guarded so it never steps backwards: an NTP
 * correction that moves the wall clock back holds the reading until real time catches up,
 * so no limiter sees time reverse (fixed windows stay aligned to the epoch).
 */
export function createSystemClock(): Clock {
  let latest = -Infinity;
  return () => {
    const t = Date.now();
    if (t > latest) latest = t;
    return latest;
  };
}

/** @deprecated use createSystemClock: the old name of the same factory, kept for one release. */
export const systemClock = createSystemClock;

/**
 * A reading of `clock` in milliseconds, checked finite: a clock that returns NaN or an
 * infinity throws `INVALID_ARGUMENT` (field `clock`) before any state sees the time.
 */
export function readClock(clock: Clock): number {
  const now = clock();
  if (!Number.isFinite(now)) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `clock: expected a finite time in milliseconds, got ${describeValue(now)}`,
      { field: 'clock' },
    );
  }
  return now;
}

/** Normalises a {@link ClockSource} to a plain function. */
export function toClock(source: ClockSource | undefined): Clock {
  if (source === undefined) return createSystemClock();
  if (typeof source === 'function') return source;
  return () => source.now();
}

/**
 * A clock that moves only when told to: for tests, simulations and teaching.
 * Times are milliseconds; `set` may move it backwards, to test how limiters cope.
 * It is also a {@link Scheduler}: timers (`schedule`) fire, in time order, as `advance`
 * or `set` moves the clock past them, each with the clock reading its due time; what
 * awaits them (a `limiter.wait`) runs afterwards, as microtasks.
 */
export class ManualClock implements Scheduler {
  private current: number;
  private readonly timers = new TimerHeap();

  constructor(startMs = 0) {
    this.current = checkTime(startMs, 'startMs');
  }

  /** The current time in milliseconds. */
  now(): number {
    return this.current;
  }

  /** Moves the clock forward by `ms` (finite, >= 0), firing the timers due on the way. */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RatelabError('INVALID_ARGUMENT', `advance(ms): expected a finite number >= 0, got ${ms}`, {
        field: 'ms',
      });
    }
    this.runTo(this.current + ms);
  }

  /** Sets the clock to `ms` (any finite number, earlier times included), firing the timers due by then. */
  set(ms: number): void {
    const target = checkTime(ms, 'ms');
    if (target >= this.current) this.runTo(target);
    else this.current = target;
  }

  /**
   * Calls `callback` once the clock reaches now + `delayMs` (a timer set for the past or
   * the present fires on the next `advance`, even by 0). Returns a function that cancels it.
   */
  schedule(callback: () => void, delayMs: number): () => void {
    return this.timers.push(
      this.current + Math.max(0, Number.isFinite(delayMs) ? delayMs : Number.MAX_VALUE),
      callback,
    );
  }

  /** Timers scheduled and neither fired nor cancelled. */
  get pendingTimers(): number {
    return this.timers.size;
  }

  /** Fires due timers in time order (scheduling order at equal times), then sets the clock to `target`. */
  private runTo(target: number): void {
    for (let timer = this.timers.popDue(target); timer; timer = this.timers.popDue(target)) {
      if (timer.due > this.current) this.current = timer.due;
      timer.callback();
    }
    this.current = target;
  }
}

interface Timer {
  readonly due: number;
  readonly seq: number;
  readonly callback: () => void;
  /** Its index in the heap; -1 once fired or cancelled. */
  index: number;
}

/** ManualClock's timers by due time, then scheduling order; a cancelled timer leaves the heap at once. */
class TimerHeap {
  private readonly heap = new MinHeap<Timer>(before, (timer, index) => (timer.index = index));
  private seq = 0;

  get size(): number {
    return this.heap.size;
  }

  push(due: number, callback: () => void): () => void {
    const timer: Timer = { due, seq: this.seq++, callback, index: -1 };
    this.heap.push(timer);
    return () => void this.heap.removeAt(timer.index);
  }

  /** Removes and returns the earliest timer due at or before `time`, if any; it then counts as fired (cancelling it does nothing). */
  popDue(time: number): Timer | undefined {
    const top = this.heap.peek();
    return top && top.due <= time ? this.heap.pop() : undefined;
  }
}

function before(a: Timer, b: Timer): boolean {
  return a.due < b.due || (a.due === b.due && a.seq < b.seq);
}

function checkTime(ms: number, field: string): number {
  if (!Number.isFinite(ms)) {
    throw new RatelabError('INVALID_ARGUMENT', `${field}: expected a finite time in milliseconds, got ${ms}`, {
      field,
    });
  }
  return ms;
}
