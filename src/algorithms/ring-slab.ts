import { grow } from '../core/typed-arrays.js';

/** The smallest page: a limiter with a few keys holds a few hundred bytes, not a whole page. */
const FIRST_PAGE_ENTRIES = 16;
/** Pages are at least this long (2 MiB): few pages, and most limiters hold everything in the first, which decisions reach fastest. */
const MIN_PAGE_ENTRIES = 1 << 18;
/** Addresses are kept in 32-bit columns. */
const ADDRESS_SPACE = 2 ** 32;

/**
 * Blocks of Float64 entries for many rings of different sizes, carved from a few shared
 * pages, so no ring carries an ArrayBuffer of its own (a typed array per key takes several
 * times the bytes per key of one shared slab at a few timestamps a key; docs/bench.md).
 *
 * Block sizes come in classes: class 0 holds nothing, class c >= 1 holds `2^(c-1)` entries,
 * and the top class exactly `largest` (so a full ring takes no more than it needs). A freed
 * block goes on its class's free list (threaded through the blocks themselves, so the lists
 * cost nothing) and the next block of that class reuses it.
 *
 * An address is `page * pageEntries + offset`. Only the last page grows (by doubling, up to
 * `pageEntries`); a full page is never copied again, and a page is at least twice the largest
 * block, so the tail left when a block does not fit is smaller than what the page holds and
 * is cut into free blocks of smaller classes rather than lost.
 *
 * Memory: `allocatedEntries` grows with the blocks in use. Blocks that were freed but not
 * reused are the only overhead; the owner moves its rings into fresh pages when they exceed
 * half the blocks in use plus a page ({@link wasteful}), so pages hold at most about 1.5
 * times the entries in use plus two pages (and the last page's unused half).
 */
export class RingSlab {
  /** Entries of each class. */
  readonly sizes: Uint32Array;
  /** Entries per page (a power of two). */
  readonly pageEntries: number;
  /** `address >>> shift` is the page of an address, `address & mask` the offset in it. */
  readonly shift: number;
  readonly mask: number;
  /** The pages, by index; always this one array (owners may keep a reference to it). */
  readonly pages: Float64Array[] = [];
  /** Entries in blocks handed out and not freed. */
  liveEntries = 0;
  /** Entries in free blocks, waiting on the free lists. */
  freeEntries = 0;
  private readonly topClass: number;
  /** The first free block of each class (its first entry holds the next), -1 for none. */
  private freeHead: Float64Array;
  /** Next unused offset of the last page. */
  private top = 0;
  /** Free entries right after the last {@link restart} refilled: what fresh pages leave free. */
  private settledFree = 0;

  /**
   * @param largest the largest block, a whole number from 1 to 2^20.
   * @param minPageEntries pages are at least this long (rounded up to a power of two) and at
   *   least twice the largest block; tests pass a small one to reach page ends and compaction.
   */
  constructor(largest: number, minPageEntries = MIN_PAGE_ENTRIES) {
    this.topClass = classOf(largest);
    this.sizes = new Uint32Array(this.topClass + 1);
    for (let c = 1; c <= this.topClass; c++) this.sizes[c] = Math.min(2 ** (c - 1), largest);
    this.pageEntries = Math.max(nextPowerOfTwo(minPageEntries), 2 * 2 ** (this.topClass - 1));
    this.shift = 31 - Math.clz32(this.pageEntries);
    this.mask = this.pageEntries - 1;
    this.freeHead = new Float64Array(this.topClass + 1).fill(-1);
  }

  /** The smallest class holding `entries` (>= 1) entries; the top class for anything larger. */
  classFor(entries: number): number {
    const c = classOf(entries);
    return c < this.topClass ? c : this.topClass;
  }

  /** Entries of every page, used or not: what the slab costs, 8 B each. */
  get allocatedEntries(): number {
    let total = 0;
    for (const page of this.pages) total += page.length;
    return total;
  }

  /**
   * Whether freed blocks, beyond what fresh pages leave free, exceed half the blocks in use
   * plus a page: the owner should then move its rings into fresh pages. Between two such
   * moves that many entries were freed, so the move (O(entries in use)) is amortised.
   */
  get wasteful(): boolean {
    return 2 * (this.freeEntries - this.settledFree) > this.liveEntries + 2 * this.pageEntries;
  }

  /** A block of class `cls` (>= 1); returns its address. Never moves other blocks. */
  allocate(cls: number): number {
    const size = this.sizes[cls] as number;
    this.liveEntries += size;
    const first = this.freeHead[cls] as number;
    if (first < 0) return this.bump(size);
    this.freeHead[cls] = this.read(first);
    this.freeEntries -= size;
    return first;
  }

  /** Returns the block of class `cls` at `address` to its free list. */
  free(address: number, cls: number): void {
    this.liveEntries -= this.sizes[cls] as number;
    this.pushFree(address, cls);
  }

  /**
   * Forgets every block and page; returns the old pages, from which the owner copies the
   * rings it keeps into blocks allocated afresh, then calls {@link settle}.
   */
  restart(): Float64Array[] {
    const old = this.pages.slice();
    this.pages.length = 0;
    this.top = 0;
    this.liveEntries = 0;
    this.freeEntries = 0;
    this.freeHead.fill(-1);
    return old;
  }

  /** Marks the end of a refill after {@link restart}. */
  settle(): void {
    this.settledFree = this.freeEntries;
  }

  private read(address: number): number {
    return (this.pages[address >>> this.shift] as Float64Array)[address & this.mask] as number;
  }

  private pushFree(address: number, cls: number): void {
    (this.pages[address >>> this.shift] as Float64Array)[address & this.mask] = this.freeHead[cls] as number;
    this.freeHead[cls] = address;
    this.freeEntries += this.sizes[cls] as number;
  }

  /** A new block of `size` entries at the end of the last page (growing it, or opening one). */
  private bump(size: number): number {
    let last = this.pages.length - 1;
    if (last < 0 || this.top + size > this.pageEntries) {
      if (last >= 0) this.cutTail(last);
      last = this.openPage(size);
    }
    const page = this.pages[last] as Float64Array;
    if (this.top + size > page.length) {
      this.pages[last] = grow(
        page,
        Math.min(this.pageEntries, Math.max(2 * page.length, nextPowerOfTwo(this.top + size))),
      );
    }
    const address = last * this.pageEntries + this.top;
    this.top += size;
    return address;
  }

  private openPage(size: number): number {
    if ((this.pages.length + 1) * this.pageEntries > ADDRESS_SPACE) {
      throw new RangeError(`sliding log: more than ${ADDRESS_SPACE} timestamps (32 GiB) held at once`);
    }
    this.pages.push(new Float64Array(Math.min(this.pageEntries, Math.max(FIRST_PAGE_ENTRIES, nextPowerOfTwo(size)))));
    this.top = 0;
    return this.pages.length - 1;
  }

  /** Cuts the unused end of page `last` into free blocks, largest first. */
  private cutTail(last: number): void {
    const end = (this.pages[last] as Float64Array).length;
    let offset = this.top;
    while (offset < end) {
      const cls = Math.min(31 - Math.clz32(end - offset) + 1, this.topClass);
      this.pushFree(last * this.pageEntries + offset, cls);
      offset += this.sizes[cls] as number;
    }
    this.top = end;
  }
}

/** The class of a block of `entries` >= 1, uncapped: 1 + ceil(log2(entries)). */
function classOf(entries: number): number {
  return 32 - Math.clz32(entries - 1) + 1;
}

function nextPowerOfTwo(n: number): number {
  return n <= 1 ? 1 : 2 ** (32 - Math.clz32(n - 1));
}
