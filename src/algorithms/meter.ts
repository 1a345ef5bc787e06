/**
 * The core of one algorithm: its per-key state kept in typed-array columns indexed by a
 * slot number (one slot per live key), and the arithmetic that decides on it.
 *
 * A meter is pure: no clock, no I/O, no allocation per decision. The limiter hands it the
 * key's time, which never moves backwards for a slot. Every call but `refresh` and `take`
 * assumes the slot was refreshed to `now` first.
 *
 * Times are milliseconds; waits are whole milliseconds rounded up, so waiting exactly the
 * returned time always suffices.
 */
export interface Meter {
  /** Time after the last touch at which a key is back to full quota: the safe idle bound. */
  readonly fullAfterMs: number;
  /**
   * Bytes of typed-array state this meter keeps per slot (its own size, without the key
   * store); for the sliding log, whose state follows what a key holds, the most a slot takes.
   */
  readonly bytesPerSlot: number;
  /** Grows the columns to hold `capacity` slots, keeping existing state. */
  resize(capacity: number): void;
  /** Gives `slot` the state of a key never seen before (full quota) at time `now`. */
  init(slot: number, now: number): void;
  /**
   * Lets go of what `slot` holds beyond its columns, when its key is dropped; the slot is
   * not used again before the next `init`. Only meters whose state varies in size need it.
   */
  release?(slot: number): void;
  /**
   * Brings the state from `last` (the slot's previous time) forward to `now` >= `last`.
   * Changes the representation only, never what a later decision would be.
   */
  refresh(slot: number, last: number, now: number): void;
  /** Admits `cost` units (updating the state) or denies them (changing nothing). */
  take(slot: number, now: number, cost: number): boolean;
  /** Units that could be admitted right now. */
  remaining(slot: number, now: number): number;
  /** Wait until `cost` units would be admitted: 0 if now, Infinity if never. */
  waitFor(slot: number, now: number, cost: number): number;
  /** Wait until the key is back to full quota (0 if it is). */
  untilFull(slot: number, now: number): number;
  /**
   * What `slot` holds as of `now` >= `last` (the slot's previous time), read without changing
   * anything: for showing the state (the playground), never on a decision's path. Single
   * meters only; a composite has none.
   */
  inspect?(slot: number, last: number, now: number): KeyState;
}

/**
 * One key's state as its algorithm holds it, as of a time (`limiter.inspect(key)`). Times are
 * ms on the limiter's clock; counts are units.
 */
export type KeyState =
  /** Tokens in the bucket (fractional between refills), of `capacity`, refilled at `ratePerMs` per ms. */
  | { algorithm: 'token-bucket'; tokens: number; capacity: number; ratePerMs: number }
  /**
   * The theoretical arrival time `tat` (ms, never before `now`), the emission interval
   * `intervalMs` (`windowMs / limit`) and the tolerance `toleranceMs` (`(burst - 1) x interval`):
   * one more unit is admitted while `tat - now <= toleranceMs`.
   */
  | { algorithm: 'gcra'; now: number; tat: number; intervalMs: number; toleranceMs: number }
  /** The times of the admitted units still in the window `(now - windowMs, now]`, oldest first. */
  | { algorithm: 'sliding-log'; now: number; windowMs: number; timestamps: number[] }
  /**
   * The previous and current aligned windows' counts, the current window's start, the
   * previous window's weight `(W - elapsed) / W` (0 to 1) and the estimate `previous x weight + current`.
   */
  | {
      algorithm: 'sliding-counter';
      previous: number;
      current: number;
      windowStart: number;
      weight: number;
      estimate: number;
    }
  /** The count of the aligned window `[windowStart, windowEnd)` holding `now`. */
  | { algorithm: 'fixed-window'; count: number; windowStart: number; windowEnd: number };

/**
 * The start of the aligned window (multiple of `windowMs`) that holds a time, remembered for
 * the latest window asked about: nearly every decision falls in it, and a hit costs two
 * comparisons where `Math.floor(t / windowMs) * windowMs` costs a division. A miss computes
 * exactly that expression.
 */
export class WindowCache {
  private start = 0;
  private end = -Infinity;

  constructor(private readonly windowMs: number) {}

  startOf(t: number): number {
    if (t >= this.start && t < this.end) return this.start;
    const start = Math.floor(t / this.windowMs) * this.windowMs;
    this.start = start;
    this.end = start + this.windowMs;
    return start;
  }
}
