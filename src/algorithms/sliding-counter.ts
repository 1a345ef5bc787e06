import type { Limits } from '../core/policy.js';
import { WindowCache, type KeyState, type Meter } from './meter.js';
import { PRIVATE_COLUMNS, floorDiv, type ColumnStore } from '../core/typed-arrays.js';

/**
 * Sliding-window counter (Cloudflare, 2017): two counters per key, the previous and the
 * current aligned window, and the estimate `prev * (W - elapsed) / W + current`. A cost is
 * admitted when the estimate including it stays within `limit`.
 *
 * The comparison is done multiplied through by `W`, so on whole-millisecond clocks it is
 * exact integer arithmetic. The estimate assumes the previous window's requests were spread
 * evenly; when they were not (a full quota at the very end of it), the counter admits up to
 * nearly 2x the limit inside one sliding window, which the lab's scenarios show.
 */
export class SlidingCounter implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot = 8;
  private prev = new Uint32Array(0);
  private cur = new Uint32Array(0);
  private readonly limit: number;
  private readonly windowMs: number;
  /** `limit * windowMs`: the most `used` may reach. */
  private readonly budget: number;
  private readonly window: WindowCache;

  /** @param store where the columns live (default: this thread's memory). */
  constructor(
    limits: Limits,
    private readonly store: ColumnStore = PRIVATE_COLUMNS,
  ) {
    this.limit = limits.limit;
    this.windowMs = limits.windowMs;
    this.budget = limits.limit * limits.windowMs;
    this.window = new WindowCache(limits.windowMs);
    this.fullAfterMs = 2 * limits.windowMs;
  }

  resize(capacity: number): void {
    this.prev = this.store.grow(this.prev, capacity);
    this.cur = this.store.grow(this.cur, capacity);
  }

  init(slot: number): void {
    this.prev[slot] = 0;
    this.cur[slot] = 0;
  }

  refresh(slot: number, last: number, now: number): void {
    // last <= now: nothing rolls while last is in now's window.
    const start = this.window.startOf(now);
    if (last >= start) return;
    this.prev[slot] = rolledPrevious(this.cur[slot] as number, last, start, this.windowMs);
    this.cur[slot] = 0;
  }

  take(slot: number, now: number, cost: number): boolean {
    // `used` written out, so `cur` is read once (the hot path of every decision).
    const w = this.windowMs;
    const cur = this.cur[slot] as number;
    const used = (this.prev[slot] as number) * (w - this.elapsed(now)) + cur * w;
    if (used + cost * w > this.budget) return false;
    this.cur[slot] = cur + cost;
    return true;
  }

  remaining(slot: number, now: number): number {
    const room = this.budget - this.used(slot, now);
    return room <= 0 ? 0 : floorDiv(room, this.windowMs);
  }

  /**
   * The estimate only falls as time passes (at a boundary `cur` becomes `prev` at full
   * weight), so the first instant it admits `cost` is found in closed form.
   */
  waitFor(slot: number, now: number, cost: number): number {
    if (cost > this.limit) return Infinity;
    const w = this.windowMs;
    const elapsed = this.elapsed(now);
    const prev = this.prev[slot] as number;
    const cur = this.cur[slot] as number;
    const room = this.limit - cur - cost;
    if (room >= 0) {
      // Within this window: wait until prev * (W - e) <= room * W.
      if (prev === 0) return 0;
      const needed = w - floorDiv(room * w, prev);
      return needed <= elapsed ? 0 : Math.ceil(needed - elapsed);
    }
    // Only the next window can do: there prev' = cur, and cur * (W - e) <= (limit - cost) * W.
    const needed = w - floorDiv((this.limit - cost) * w, cur);
    return Math.ceil(w - elapsed + needed);
  }

  untilFull(slot: number, now: number): number {
    const elapsed = this.elapsed(now);
    if ((this.cur[slot] as number) > 0) return Math.ceil(2 * this.windowMs - elapsed);
    if ((this.prev[slot] as number) > 0) return Math.ceil(this.windowMs - elapsed);
    return 0;
  }

  inspect(slot: number, last: number, now: number): KeyState {
    // The counts `refresh` would leave, read without writing them.
    const w = this.windowMs;
    const windowStart = this.window.startOf(now);
    let previous = this.prev[slot] as number;
    let current = this.cur[slot] as number;
    if (last < windowStart) {
      previous = rolledPrevious(current, last, windowStart, w);
      current = 0;
    }
    const weight = (w - (now - windowStart)) / w;
    return {
      algorithm: 'sliding-counter',
      previous,
      current,
      windowStart,
      weight,
      estimate: previous * weight + current,
    };
  }

  /** The weighted count, multiplied by W: `prev * (W - elapsed) + cur * W`. */
  private used(slot: number, now: number): number {
    const w = this.windowMs;
    return (this.prev[slot] as number) * (w - this.elapsed(now)) + (this.cur[slot] as number) * w;
  }

  private elapsed(now: number): number {
    return now - this.window.startOf(now);
  }
}

/**
 * The previous window's count once a key last used at `last` moves on to the window starting
 * at `start` (last < start): its current count `cur` when `last` was in the window just
 * before (whole-ms window, so `start - windowMs` is exact), else 0.
 */
function rolledPrevious(cur: number, last: number, start: number, windowMs: number): number {
  return last >= start - windowMs ? cur : 0;
}
