import { grow } from '../core/typed-arrays.js';

const NONE = -1;

/**
 * Slots in order of last use, as a doubly linked list in two Int32Array columns: O(1) to
 * move a slot to the most recent end or to unlink it, and 8 bytes per slot. Only limiters
 * with a `maxKeys` cap keep one.
 */
export class LruList {
  private prev = new Int32Array(0);
  private next = new Int32Array(0);
  private head = NONE;
  private tail = NONE;

  resize(capacity: number): void {
    this.prev = grow(this.prev, capacity);
    this.next = grow(this.next, capacity);
  }

  /** The least recently used slot, or -1 when empty. */
  get oldest(): number {
    return this.head;
  }

  /** Appends `slot` (not in the list) as the most recent. */
  push(slot: number): void {
    this.prev[slot] = this.tail;
    this.next[slot] = NONE;
    if (this.tail === NONE) this.head = slot;
    else this.next[this.tail] = slot;
    this.tail = slot;
  }

  remove(slot: number): void {
    const before = this.prev[slot] as number;
    const after = this.next[slot] as number;
    if (before === NONE) this.head = after;
    else this.next[before] = after;
    if (after === NONE) this.tail = before;
    else this.prev[after] = before;
  }

  /** Marks `slot` (in the list) as the most recently used. */
  touch(slot: number): void {
    if (slot === this.tail) return;
    this.remove(slot);
    this.push(slot);
  }
}
