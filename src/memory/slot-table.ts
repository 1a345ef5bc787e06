import { grow } from '../core/typed-arrays.js';
import { LruList } from './lru-list.js';

/** Per-slot state owned by someone else (a meter) that must grow with the table. */
export interface SlotColumns {
  resize(capacity: number): void;
  /** Told when a slot's key is dropped, so storage beyond the columns can be reused. */
  release?(slot: number): void;
}

const FIRST_CAPACITY = 2;

/**
 * The in-memory key store: maps each live key to a slot number that indexes typed-array
 * columns, and records when each slot was last used. About 30 B of Map entry, 8 B of key
 * reference and 8 B of time per key, plus the meter's own columns (and 8 B of LRU links
 * when `maxKeys` is set): no object per key.
 *
 * Idle keys are dropped without timers (one `setTimeout` per key is what broke
 * rate-limiter-flexible, #238 and #71): every call advances a sweep over a couple of slots,
 * so the cost is O(1) per call and every idle key is found within `capacity / 2` calls.
 * `prune` sweeps everything at once.
 */
export class SlotTable {
  /** When each slot was last used, in the limiter's clock; never decreases for a slot. */
  touched = new Float64Array(0);
  private readonly index = new Map<string, number>();
  private readonly keys: Array<string | undefined> = [];
  private readonly free: number[] = [];
  private readonly lru: LruList | undefined;
  private capacity = 0;
  private highWater = 0;
  private cursor = 0;
  /** A lower bound of `touched` over live slots, so no key can be idle before it + idleMs. */
  private oldest = Infinity;
  /** The least `touched` seen by the sweep in its current pass (and of keys added meanwhile). */
  private passOldest = Infinity;
  /** `oldest + idleMs`: until then a sweep has nothing to find and returns at once. */
  private quietUntil = Infinity;

  /**
   * @param columns grown alongside the table.
   * @param idleMs a slot unused for this long is dropped (Infinity: never).
   * @param maxKeys at most this many live keys; the least recently used goes first.
   */
  constructor(
    private readonly columns: SlotColumns,
    private readonly idleMs: number,
    private readonly maxKeys: number,
  ) {
    this.lru = Number.isFinite(maxKeys) ? new LruList() : undefined;
  }

  get size(): number {
    return this.index.size;
  }

  /** The slot of `key`, or -1 when it is not live. */
  find(key: string): number {
    const slot = this.index.get(key);
    return slot === undefined ? -1 : slot;
  }

  /**
   * Makes `key` live in a fresh slot used at `now`, evicting the least recent at the cap.
   * `key` must be a string (the limiter checks): `undefined` in `keys` marks a free slot.
   */
  add(key: string, now: number): number {
    if (this.index.size >= this.maxKeys && this.lru) this.evict(this.lru.oldest);
    const slot = this.free.length > 0 ? (this.free.pop() as number) : this.claim();
    this.index.set(key, slot);
    this.keys[slot] = key;
    this.touched[slot] = now;
    this.lru?.push(slot);
    if (now < this.passOldest) this.passOldest = now;
    if (now < this.oldest) this.setOldest(now);
    return slot;
  }

  /** Records a use of `slot` at `now`. */
  use(slot: number, now: number): void {
    this.touched[slot] = now;
    this.lru?.touch(slot);
  }

  /**
   * Examines the next `steps` slots and drops those idle at `now`. While no key can be idle
   * yet (`now` before {@link quietUntil}) there is nothing to find, and it returns at once:
   * that keeps the common call to one comparison, and an idle key is still found within
   * `capacity / 2` calls of becoming idle.
   */
  sweep(now: number, steps: number): void {
    if (now >= this.quietUntil && this.highWater > 0) this.examine(now, steps);
  }

  /** The sweep proper, kept apart so the check above is all that is inlined into a decision. */
  private examine(now: number, steps: number): void {
    for (let i = 0; i < steps; i++) {
      const slot = this.cursor;
      if (this.keys[slot] !== undefined) {
        const touched = this.touched[slot] as number;
        if (touched + this.idleMs <= now) this.evict(slot);
        else if (touched < this.passOldest) this.passOldest = touched;
      }
      if (slot + 1 < this.highWater) {
        this.cursor = slot + 1;
      } else {
        // A full pass: every live slot was seen (or added since, also counted).
        this.cursor = 0;
        this.setOldest(this.passOldest);
        this.passOldest = Infinity;
      }
    }
  }

  private setOldest(time: number): void {
    this.oldest = time;
    this.quietUntil = time + this.idleMs;
  }

  /** Drops every key idle at `now`; returns how many. */
  prune(now: number): number {
    const before = this.index.size;
    this.sweep(now, this.highWater);
    return before - this.index.size;
  }

  /** Forgets `key`; returns whether it was live. */
  delete(key: string): boolean {
    const slot = this.index.get(key);
    if (slot === undefined) return false;
    this.evict(slot);
    return true;
  }

  private evict(slot: number): void {
    const key = this.keys[slot];
    if (key === undefined) return;
    this.index.delete(key);
    this.keys[slot] = undefined;
    this.lru?.remove(slot);
    this.columns.release?.(slot);
    this.free.push(slot);
  }

  private claim(): number {
    if (this.highWater === this.capacity) this.resize(Math.max(FIRST_CAPACITY, this.capacity * 2));
    return this.highWater++;
  }

  private resize(capacity: number): void {
    this.capacity = capacity;
    this.touched = grow(this.touched, capacity);
    this.lru?.resize(capacity);
    this.columns.resize(capacity);
  }
}
