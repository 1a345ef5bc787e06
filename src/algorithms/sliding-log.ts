import { slidingLogBytes } from '../core/sliding-log-size.js';
import { RatelabError } from '../core/errors.js';
import { type Limits } from '../core/policy.js';
import { type KeyState, type Meter } from './meter.js';
import { RingSlab } from './ring-slab.js';
import { PRIVATE_COLUMNS, grow, type ColumnStore } from '../core/typed-arrays.js';

const NO_PAGE: Float64Array = new Float64Array(0);
/** Fixed blocks (a shared store) are addressed below this. */
const FIXED_MASK = 0x7fff_ffff;

// The size rule (SLIDING_LOG_COLUMN_BYTES, slidingLogBytes) lives in src/core/sliding-log-size.ts:
// checkPolicy refuses a limit above it.

/**
 * Sliding-window log: the exact answer. It keeps the time of every admitted unit in the
 * window `(now - windowMs, now]` and admits while fewer than `limit` remain.
 *
 * Memory follows what a key holds, not its limit: each key's timestamps are a ring (head +
 * count) in a block of a shared {@link RingSlab}, sized to a power of two that fits them (or
 * exactly `limit` when full). A ring grows by doubling when an admission does not fit, moves
 * to a block of about twice its count when expiry leaves it under a quarter full, and lets go
 * of its block when it empties or its key is dropped. So a key with one timestamp takes one
 * 8 B entry and a full key `limit` of them (plus 13 B of columns per key): a ring has room
 * for at most `min(limit, 4 x count)` timestamps (`count`: those in its window when the key
 * was last used), and the slab's pages hold at most about 1.5 times the rings plus two pages
 * (see RingSlab). A limit of 100000 does not reserve 800 KB for every key seen once.
 *
 * Decisions are O(1) amortised: each unit is appended once and expired once, and a ring is
 * copied only after as many admissions or expiries as it holds.
 *
 * Over a shared {@link ColumnStore} (ratelab/shared: a SharedArrayBuffer of fixed size that
 * other threads read) the rings cannot move, since the slab's free lists are this thread's
 * own: each key then owns a fixed block of `limit` entries at `slot * limit`, as the table
 * owns a fixed number of keys. Only `head`, `count` and the timestamps live in the store;
 * `base` and `cls` are the same constants in every thread.
 */
export class SlidingLog implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot: number;
  private readonly slab: RingSlab;
  /** Address of each slot's block in the slab (meaningless while its class is 0). */
  private base = new Uint32Array(0);
  private head = new Uint32Array(0);
  private count = new Uint32Array(0);
  /** The block's size class; 0: no block (no timestamps held). */
  private cls = new Uint8Array(0);
  private readonly limit: number;
  private readonly windowMs: number;
  // The slab's geometry, kept here so a decision reaches it in one load, not two.
  private readonly pages: Float64Array[];
  private readonly sizes: Uint32Array;
  private readonly shift: number;
  private readonly mask: number;
  /** Rings never move (a shared store): see the class comment. */
  private readonly fixed: boolean;
  /**
   * The slab's first page, read without going through the page list: most limiters hold all
   * their timestamps in it, and the list costs a decision several loads and checks.
   */
  private first = NO_PAGE;

  /**
   * @param store where the columns live (default: this thread's memory; any other store
   *   gives fixed blocks of `limit` entries, see the class comment).
   * @param minPageEntries the slab's smallest page (see RingSlab; default 2^18 entries):
   *   tests pass a small one so that page ends and compaction happen within a few keys.
   */
  constructor(
    limits: Limits,
    private readonly store: ColumnStore = PRIVATE_COLUMNS,
    minPageEntries?: number,
  ) {
    this.fixed = store !== PRIVATE_COLUMNS;
    this.limit = limits.limit;
    this.windowMs = limits.windowMs;
    this.fullAfterMs = limits.windowMs;
    this.bytesPerSlot = slidingLogBytes(limits.limit);
    this.slab = new RingSlab(limits.limit, minPageEntries);
    this.pages = this.slab.pages;
    this.sizes = this.slab.sizes;
    // Fixed blocks are addressed within one page: every address reads `first`.
    this.shift = this.fixed ? 31 : this.slab.shift;
    this.mask = this.fixed ? FIXED_MASK : this.slab.mask;
  }

  /** Entries per page of the slab: the unit of its growth once past the first page. */
  get pageSlots(): number {
    return this.slab.pageEntries;
  }

  /**
   * Timestamp entries the slab's pages hold now, in use or free (8 B each, besides the
   * `SLIDING_LOG_COLUMN_BYTES` of columns per slot): about the timestamps in all
   * windows, at most twice them plus two pages.
   */
  get allocatedSlots(): number {
    return this.slab.allocatedEntries;
  }

  /** Timestamp entries in the blocks of live keys. */
  get heldSlots(): number {
    return this.slab.liveEntries;
  }

  resize(capacity: number): void {
    if (this.fixed) return this.resizeFixed(capacity);
    this.base = grow(this.base, capacity);
    this.head = grow(this.head, capacity);
    this.count = grow(this.count, capacity);
    this.cls = grow(this.cls, capacity);
  }

  /** Fixed blocks of `limit` entries, the timestamps, heads and counts in the store. */
  private resizeFixed(capacity: number): void {
    if (capacity * this.limit > FIXED_MASK) {
      const why = `${capacity} keys of limit ${this.limit} would hold ${capacity * this.limit} timestamps; a shared sliding log addresses at most ${FIXED_MASK}: lower maxKeys or the limit (sliding-counter keeps 8 B a key whatever the limit)`;
      throw new RatelabError('POLICY_TOO_LARGE', `shared sliding log: ${why}`, { field: 'maxKeys' });
    }
    const from = this.base.length;
    this.base = grow(this.base, capacity);
    this.cls = grow(this.cls, capacity);
    const top = this.slab.classFor(this.limit);
    for (let slot = from; slot < capacity; slot++) {
      this.base[slot] = slot * this.limit;
      this.cls[slot] = top;
    }
    this.first = this.store.grow(this.first, capacity * this.limit);
    this.head = this.store.grow(this.head, capacity);
    this.count = this.store.grow(this.count, capacity);
  }

  init(slot: number): void {
    if (this.cls[slot] !== 0 && !this.fixed) this.release(slot);
    this.head[slot] = 0;
    this.count[slot] = 0;
  }

  release(slot: number): void {
    this.count[slot] = 0;
    if (this.cls[slot] !== 0 && !this.fixed) this.move(slot, 0);
  }

  refresh(slot: number, _last: number, now: number): void {
    let count = this.count[slot] as number;
    if (count === 0) return;
    const horizon = now - this.windowMs;
    const start = this.base[slot] as number;
    const page = start < this.mask ? this.first : (this.pages[start >>> this.shift] as Float64Array);
    const offset = start & this.mask;
    let head = this.head[slot] as number;
    if ((page[offset + head] as number) > horizon) return;
    const capacity = this.sizes[this.cls[slot] as number] as number;
    do {
      head = head + 1 === capacity ? 0 : head + 1;
      count -= 1;
    } while (count > 0 && (page[offset + head] as number) <= horizon);
    this.head[slot] = head;
    this.count[slot] = count;
    if (count * 4 < capacity && !this.fixed) this.move(slot, count === 0 ? 0 : this.slab.classFor(2 * count));
  }

  take(slot: number, now: number, cost: number): boolean {
    const count = this.count[slot] as number;
    if (count + cost > this.limit) return false;
    if (cost === 0) return true;
    let capacity = this.sizes[this.cls[slot] as number] as number;
    if (count + cost > capacity) capacity = this.grow(slot, count + cost);
    const start = this.base[slot] as number;
    const page = start < this.mask ? this.first : (this.pages[start >>> this.shift] as Float64Array);
    const offset = start & this.mask;
    let i = (this.head[slot] as number) + count;
    if (i >= capacity) i -= capacity;
    for (let n = 0; n < cost; n++) {
      page[offset + i] = now;
      i = i + 1 === capacity ? 0 : i + 1;
    }
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
    return Math.ceil(this.entry(slot, mustExpire - 1) + this.windowMs - now);
  }

  untilFull(slot: number, now: number): number {
    const count = this.count[slot] as number;
    if (count === 0) return 0;
    return Math.ceil(this.entry(slot, count - 1) + this.windowMs - now);
  }

  inspect(slot: number, _last: number, now: number): KeyState {
    const timestamps: number[] = [];
    const count = this.count[slot] as number;
    for (let i = 0; i < count; i++) {
      const t = this.entry(slot, i);
      if (t > now - this.windowMs) timestamps.push(t);
    }
    return { algorithm: 'sliding-log', now, windowMs: this.windowMs, timestamps };
  }

  /** The slot's i-th oldest timestamp. */
  private entry(slot: number, i: number): number {
    const start = this.base[slot] as number;
    const capacity = this.sizes[this.cls[slot] as number] as number;
    const offset = (this.head[slot] as number) + i;
    const page = start < this.mask ? this.first : (this.pages[start >>> this.shift] as Float64Array);
    return page[(start & this.mask) + (offset < capacity ? offset : offset - capacity)] as number;
  }

  /** Moves the slot's ring to a block holding `entries`; returns the block's size. */
  private grow(slot: number, entries: number): number {
    const cls = this.slab.classFor(entries);
    this.move(slot, cls);
    return this.sizes[cls] as number;
  }

  /**
   * Moves the slot's timestamps, oldest first, into a fresh block of class `cls` (0: none,
   * when it holds none), frees the old one, and tidies the slab if freed blocks pile up.
   * Kept out of line: decisions that fit their ring never come here.
   */
  private move(slot: number, cls: number): void {
    const from = this.cls[slot] as number;
    const to = cls === 0 ? 0 : this.slab.allocate(cls);
    // Read after allocating: allocating may replace the last page by a longer copy.
    if (cls !== 0) this.copyRing(this.pages, slot, to);
    if (from !== 0) this.slab.free(this.base[slot] as number, from);
    this.base[slot] = to;
    this.head[slot] = 0;
    this.cls[slot] = cls;
    if (this.slab.wasteful) this.compact();
    this.first = this.pages[0] ?? NO_PAGE;
  }

  /** Copies the slot's ring, unrolled, from `pages` to address `to` of the slab. */
  private copyRing(pages: readonly Float64Array[], slot: number, to: number): void {
    const count = this.count[slot] as number;
    if (count === 0) return;
    const { shift, mask } = this;
    const start = this.base[slot] as number;
    const source = pages[start >>> shift] as Float64Array;
    const offset = start & mask;
    const capacity = this.sizes[this.cls[slot] as number] as number;
    const head = this.head[slot] as number;
    const target = this.pages[to >>> shift] as Float64Array;
    const first = Math.min(count, capacity - head);
    target.set(source.subarray(offset + head, offset + head + first), to & mask);
    if (first < count) target.set(source.subarray(offset, offset + count - first), (to & mask) + first);
  }

  /**
   * Moves every ring into fresh pages, packed, dropping the freed blocks: what keeps the
   * slab near the timestamps it holds after keys burst and went quiet. Largest blocks
   * first, so power-of-two blocks fill power-of-two pages without gaps at their ends.
   */
  private compact(): void {
    const byClass = Array.from(this.sizes, (): number[] => []);
    for (let slot = 0; slot < this.cls.length; slot++) {
      const cls = this.cls[slot] as number;
      if (cls !== 0) (byClass[cls] as number[]).push(slot);
    }
    const old = this.slab.restart();
    for (let cls = byClass.length - 1; cls > 0; cls--) {
      for (const slot of byClass[cls] as number[]) {
        const to = this.slab.allocate(cls);
        this.copyRing(old, slot, to);
        this.base[slot] = to;
        this.head[slot] = 0;
      }
    }
    this.slab.settle();
  }
}
