import type { Limits } from '../core/policy.js';
import { type KeyState, type Meter } from './meter.js';
import { PRIVATE_COLUMNS, type ColumnStore } from '../core/typed-arrays.js';

/**
 * GCRA, the leaky bucket as a meter (ITU-T I.371): one number per key, the theoretical
 * arrival time (TAT). Emission interval `T = windowMs / limit`, tolerance
 * `tau = (burst - 1) * T`; a unit is admitted when `TAT - now <= tau`. With
 * `burst = capacity` it makes exactly the token bucket's decisions (a GCRA in the wild
 * used `tau = burst * T` and admitted one request too many).
 *
 * Times are scaled by `limit`, so `T` is the whole number `windowMs`. The TAT is kept as
 * how far it is ahead of the key's last use (the store keeps that time anyway), never as
 * an absolute time: scaled by `limit`, an absolute time passes 2^53 within 35 minutes of
 * uptime at the largest limits (within months at a limit of 1e6), after which it rounds
 * and decisions go wrong. The lead is at most `burst * windowMs`, so it stays exact.
 */
export class Gcra implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot = 8;
  /** max(TAT - last use, 0), scaled by `limit`. */
  private ahead = new Float64Array(0);
  private readonly interval: number;
  private readonly scale: number;
  private readonly horizon: number;
  private readonly capacity: number;

  /** @param store where the columns live (default: this thread's memory). */
  constructor(
    limits: Limits,
    private readonly store: ColumnStore = PRIVATE_COLUMNS,
  ) {
    this.interval = limits.windowMs;
    this.scale = limits.limit;
    this.capacity = limits.capacity;
    this.horizon = limits.capacity * limits.windowMs; // tau + T, scaled
    this.fullAfterMs = Math.ceil(this.horizon / this.scale);
  }

  resize(capacity: number): void {
    this.ahead = this.store.grow(this.ahead, capacity);
  }

  init(slot: number): void {
    this.ahead[slot] = 0;
  }

  refresh(slot: number, last: number, now: number): void {
    const ahead = (this.ahead[slot] as number) - (now - last) * this.scale;
    this.ahead[slot] = ahead > 0 ? ahead : 0;
  }

  take(slot: number, _now: number, cost: number): boolean {
    const next = (this.ahead[slot] as number) + cost * this.interval;
    if (next > this.horizon) return false;
    this.ahead[slot] = next;
    return true;
  }

  remaining(slot: number): number {
    return Math.floor((this.horizon - (this.ahead[slot] as number)) / this.interval);
  }

  waitFor(slot: number, _now: number, cost: number): number {
    if (cost > this.capacity) return Infinity;
    const over = (this.ahead[slot] as number) + cost * this.interval - this.horizon;
    return over <= 0 ? 0 : Math.ceil(over / this.scale);
  }

  untilFull(slot: number): number {
    return Math.ceil((this.ahead[slot] as number) / this.scale);
  }

  inspect(slot: number, last: number, now: number): KeyState {
    const ahead = Math.max((this.ahead[slot] as number) - (now - last) * this.scale, 0);
    const intervalMs = this.interval / this.scale;
    return {
      algorithm: 'gcra',
      now,
      tat: now + ahead / this.scale,
      intervalMs,
      toleranceMs: (this.capacity - 1) * intervalMs,
    };
  }
}
