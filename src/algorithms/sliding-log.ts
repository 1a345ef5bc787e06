import { slidingLogBytes, type Limits } from '../policy.js';
import { type Meter } from './meter.js';
import { PRIVATE_COLUMNS, type ColumnStore } from '../typed-arrays.js';

// The size rule lives in src/policy.ts (checkPolicy refuses a limit above it); the entry
// points still re-export the constant from here.

/**
 * Sliding-window log: the exact answer. It keeps the time of every admitted unit in the
 * window `(now - windowMs, now]` and admits while fewer than `limit` remain. Memory is
 * O(limit) per key: each key owns `limit` consecutive entries of one shared Float64Array
 * slab, used as a ring (head + count). One slab, not an array per key, because a typed array
 * per key carries its own buffer (333 B per key for limit 10, against 114 B for a slab, as
 * measured in the field notes). Decisions are O(1) amortised: each unit is appended once
 * and expired once.
 */
export class SlidingLog implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot: number;
  private times = new Float64Array(0);
  private head = new Uint32Array(0);
  private count = new Uint32Array(0);
  private readonly limit: number;
  private readonly windowMs: number;

  /** @param store where the columns live (default: this thread's memory). */
  constructor(limits: Limits, private readonly store: ColumnStore = PRIVATE_COLUMNS) {
    this.limit = limits.limit;
    this.windowMs = limits.windowMs;
    this.fullAfterMs = limits.windowMs;
    this.bytesPerSlot = slidingLogBytes(limits.limit);
  }

  resize(capacity: number): void {
    this.times = this.store.grow(this.times, capacity * this.limit);
    this.head = this.store.grow(this.head, capacity);
    this.count = this.store.grow(this.count, capacity);
  }

  init(slot: number): void {
    this.head[slot] = 0;
    this.count[slot] = 0;
  }

  refresh(slot: number, _last: number, now: number): void {
    const horizon = now - this.windowMs;
    const base = slot * this.limit;
    let head = this.head[slot] as number;
    let count = this.count[slot] as number;
    while (count > 0 && (this.times[base + head] as number) <= horizon) {
      head = head + 1 === this.limit ? 0 : head + 1;
      count -= 1;
    }
    this.head[slot] = head;
    this.count[slot] = count;
  }

  take(slot: number, now: number, cost: number): boolean {
    const count = this.count[slot] as number;
    if (count + cost > this.limit) return false;
    for (let i = 0; i < cost; i++) this.times[this.at(slot, count + i)] = now;
    this.count[slot] = count + cost;
    return true;
  }

  remaining(slot: number): number {
    return this.limit - (this.count[slot] as number);
  }

  waitFor(slot: number, now: number, cost: number): number {
    if (cost > this.limit) return Infinity;
    const mustExpire = (this.count[slot] as number) + cost - this.limit;
    if (mustExpire <= 0) return 0;
    // The mustExpire-th oldest entry leaves the window windowMs after it was admitted.
    return Math.ceil((this.times[this.at(slot, mustExpire - 1)] as number) + this.windowMs - now);
  }

  untilFull(slot: number, now: number): number {
    const count = this.count[slot] as number;
    if (count === 0) return 0;
    return Math.ceil((this.times[this.at(slot, count - 1)] as number) + this.windowMs - now);
  }

  /** Index in the slab of the slot's i-th oldest entry. */
  private at(slot: number, i: number): number {
    const offset = (this.head[slot] as number) + i;
    return slot * this.limit + (offset < this.limit ? offset : offset - this.limit);
  }
}
