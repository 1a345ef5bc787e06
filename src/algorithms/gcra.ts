import type { Limits } from '../policy.js';
import { grow, type Meter } from './meter.js';

/**
 * GCRA, the leaky bucket as a meter (ITU-T I.371): one number per key, the theoretical
 * arrival time (TAT). Emission interval `T = windowMs / limit`, tolerance
 * `tau = (burst - 1) * T`; a unit is admitted when `TAT - now <= tau`. With
 * `burst = capacity` it makes exactly the token bucket's decisions (a GCRA in the wild
 * used `tau = burst * T` and admitted one request too many).
 *
 * Times are scaled by `limit` (so `T` is the whole number `windowMs`) and measured from the
 * first time this meter saw, which keeps the products small enough to be exact.
 */
export class Gcra implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot = 8;
  private tat = new Float64Array(0);
  private origin = NaN;
  private readonly interval: number;
  private readonly scale: number;
  private readonly horizon: number;
  private readonly capacity: number;

  constructor(limits: Limits) {
    this.interval = limits.windowMs;
    this.scale = limits.limit;
    this.capacity = limits.capacity;
    this.horizon = limits.capacity * limits.windowMs; // tau + T, scaled
    this.fullAfterMs = Math.ceil(this.horizon / this.scale);
  }

  resize(capacity: number): void {
    this.tat = grow(this.tat, capacity);
  }

  init(slot: number, now: number): void {
    if (Number.isNaN(this.origin)) this.origin = now;
    this.tat[slot] = this.scaled(now);
  }

  refresh(): void {
    // The TAT is already a time; nothing to bring forward.
  }

  take(slot: number, now: number, cost: number): boolean {
    const t = this.scaled(now);
    const next = Math.max(this.tat[slot] as number, t) + cost * this.interval;
    if (next - t > this.horizon) return false;
    this.tat[slot] = next;
    return true;
  }

  remaining(slot: number, now: number): number {
    return Math.floor((this.horizon - this.backlog(slot, now)) / this.interval);
  }

  waitFor(slot: number, now: number, cost: number): number {
    if (cost > this.capacity) return Infinity;
    const over = this.backlog(slot, now) + cost * this.interval - this.horizon;
    return over <= 0 ? 0 : Math.ceil(over / this.scale);
  }

  untilFull(slot: number, now: number): number {
    return Math.ceil(this.backlog(slot, now) / this.scale);
  }

  /** How far the TAT is ahead of now, scaled; 0 when the bucket is full. */
  private backlog(slot: number, now: number): number {
    const ahead = (this.tat[slot] as number) - this.scaled(now);
    return ahead > 0 ? ahead : 0;
  }

  private scaled(now: number): number {
    return (now - this.origin) * this.scale;
  }
}
