import { RatelabError } from './errors.js';

/** A clock returns the current time in milliseconds. Limiters read time only through one. */
export type Clock = () => number;

/** Anything with a `now()` method (a {@link ManualClock}) can stand in for a clock. */
export type ClockSource = Clock | { now(): number };

/**
 * The system clock in epoch milliseconds, guarded so it never steps backwards: an NTP
 * correction that moves the wall clock back holds the reading until real time catches up,
 * so no limiter sees time reverse (fixed windows stay aligned to the epoch).
 */
export function systemClock(): Clock {
  let latest = -Infinity;
  return () => {
    const t = Date.now();
    if (t > latest) latest = t;
    return latest;
  };
}

/** Normalises a {@link ClockSource} to a plain function. */
export function toClock(source: ClockSource | undefined): Clock {
  if (source === undefined) return systemClock();
  if (typeof source === 'function') return source;
  return () => source.now();
}

/**
 * A clock that moves only when told to: for tests, simulations and teaching.
 * Times are milliseconds; `set` may move it backwards, to test how limiters cope.
 */
export class ManualClock {
  private current: number;

  constructor(startMs = 0) {
    this.current = checkTime(startMs, 'startMs');
  }

  /** The current time in milliseconds. */
  now(): number {
    return this.current;
  }

  /** Moves the clock forward by `ms` (finite, >= 0). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new RatelabError('INVALID_ARGUMENT', `advance(ms): expected a finite number >= 0, got ${ms}`, { field: 'ms' });
    }
    this.current += ms;
  }

  /** Sets the clock to `ms` (any finite number, earlier times included). */
  set(ms: number): void {
    this.current = checkTime(ms, 'ms');
  }
}

function checkTime(ms: number, field: string): number {
  if (!Number.isFinite(ms)) {
    throw new RatelabError('INVALID_ARGUMENT', `${field}: expected a finite time in milliseconds, got ${ms}`, { field });
  }
  return ms;
}
