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
}

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
