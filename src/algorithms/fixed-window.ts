import type { Limits } from '../core/policy.js';
import { WindowCache, type KeyState, type Meter } from './meter.js';
import { PRIVATE_COLUMNS, type ColumnStore } from '../core/typed-arrays.js';

/**
 * Fixed window: at most `limit` units per window `[k * windowMs, (k + 1) * windowMs)`,
 * windows aligned to multiples of `windowMs` on the clock (to the epoch for the system
 * clock). One counter per key; the window it belongs to is derived from the key's last
 * time. Its known flaw: a full quota just before a boundary and another just after admit
 * 2x the limit within about one window.
 */
export class FixedWindow implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot = 4;
  private count = new Uint32Array(0);
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly window: WindowCache;

  /** @param store where the columns live (default: this thread's memory). */
  constructor(
    limits: Limits,
    private readonly store: ColumnStore = PRIVATE_COLUMNS,
  ) {
    this.limit = limits.limit;
    this.windowMs = limits.windowMs;
    this.fullAfterMs = limits.windowMs;
    this.window = new WindowCache(limits.windowMs);
  }

  resize(capacity: number): void {
    this.count = this.store.grow(this.count, capacity);
  }

  init(slot: number): void {
    this.count[slot] = 0;
  }

  refresh(slot: number, last: number, now: number): void {
    // last <= now, so they share a window exactly when last is not before now's window.
    if (last < this.window.startOf(now)) this.count[slot] = 0;
  }

  take(slot: number, _now: number, cost: number): boolean {
    const next = (this.count[slot] as number) + cost;
    if (next > this.limit) return false;
    this.count[slot] = next;
    return true;
  }

  remaining(slot: number): number {
    return this.limit - (this.count[slot] as number);
  }

  waitFor(slot: number, now: number, cost: number): number {
    if (cost > this.limit) return Infinity;
    return (this.count[slot] as number) + cost <= this.limit ? 0 : this.untilWindowEnds(now);
  }

  untilFull(slot: number, now: number): number {
    return this.count[slot] === 0 ? 0 : this.untilWindowEnds(now);
  }

  inspect(slot: number, last: number, now: number): KeyState {
    const windowStart = Math.floor(now / this.windowMs) * this.windowMs;
    const count = last < windowStart ? 0 : (this.count[slot] as number);
    return { algorithm: 'fixed-window', count, windowStart, windowEnd: windowStart + this.windowMs };
  }

  private untilWindowEnds(now: number): number {
    return Math.ceil((Math.floor(now / this.windowMs) + 1) * this.windowMs - now);
  }
}
