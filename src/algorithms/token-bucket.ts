import type { Limits } from '../core/policy.js';
import { type KeyState, type Meter } from './meter.js';
import { PRIVATE_COLUMNS, type ColumnStore } from '../core/typed-arrays.js';

/**
 * Token bucket: capacity `burst ?? limit` tokens, refilled at `limit / windowMs` per ms,
 * starting full. In any interval it admits at most `capacity + rate * (t_f - t_i)`
 * (the bound of Linux's sch_tbf).
 *
 * Tokens are stored in fixed point, scaled by `windowMs`: one token is `windowMs` units and
 * each millisecond adds `limit` units. On whole-millisecond clocks every quantity is an
 * integer, so 10 per second stays exactly 10 per second after any time (the float drift
 * of golang/go #46579 cannot happen).
 */
export class TokenBucket implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot = 8;
  private tokens = new Float64Array(0);
  private readonly unit: number;
  private readonly rate: number;
  private readonly full: number;
  private readonly capacity: number;

  /** @param store where the columns live (default: this thread's memory). */
  constructor(
    limits: Limits,
    private readonly store: ColumnStore = PRIVATE_COLUMNS,
  ) {
    this.unit = limits.windowMs;
    this.rate = limits.limit;
    this.capacity = limits.capacity;
    this.full = limits.capacity * limits.windowMs;
    this.fullAfterMs = Math.ceil(this.full / this.rate);
  }

  resize(capacity: number): void {
    this.tokens = this.store.grow(this.tokens, capacity);
  }

  init(slot: number): void {
    this.tokens[slot] = this.full;
  }

  refresh(slot: number, last: number, now: number): void {
    const refilled = (this.tokens[slot] as number) + (now - last) * this.rate;
    this.tokens[slot] = refilled < this.full ? refilled : this.full;
  }

  take(slot: number, _now: number, cost: number): boolean {
    const need = cost * this.unit;
    const have = this.tokens[slot] as number;
    if (have < need) return false;
    this.tokens[slot] = have - need;
    return true;
  }

  remaining(slot: number): number {
    return Math.floor((this.tokens[slot] as number) / this.unit);
  }

  waitFor(slot: number, _now: number, cost: number): number {
    if (cost > this.capacity) return Infinity;
    const short = cost * this.unit - (this.tokens[slot] as number);
    return short <= 0 ? 0 : Math.ceil(short / this.rate);
  }

  untilFull(slot: number): number {
    return Math.ceil((this.full - (this.tokens[slot] as number)) / this.rate);
  }

  inspect(slot: number, last: number, now: number): KeyState {
    const tokens = Math.min((this.tokens[slot] as number) + (now - last) * this.rate, this.full) / this.unit;
    return { algorithm: 'token-bucket', tokens, capacity: this.capacity, ratePerMs: this.rate / this.unit };
  }
}
