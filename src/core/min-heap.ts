/**
 * Where a heap item now sits: its index, or -1 once it left the heap. An owner that keeps
 * it on the item can take the item out later with {@link MinHeap.removeAt}.
 */
export type HeapPlace<T> = (item: T, index: number) => void;

/**
 * A binary min-heap ordered by `before` (a strict "comes first"): O(log n) push, pop and
 * removeAt. With `place`, the heap tells each item where it moves, so an item can leave
 * as soon as it is no longer wanted rather than linger until it comes to the top.
 * The core's own, since the core entry loads no third-party module (the lab uses flatqueue).
 */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(
    private readonly before: (a: T, b: T) => boolean,
    private readonly place?: HeapPlace<T>,
  ) {}

  get size(): number {
    return this.items.length;
  }

  /** The first item, without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    this.items.push(item);
    this.put(this.items.length - 1, item);
    this.up(this.items.length - 1);
  }

  /** Removes and returns the first item. */
  pop(): T | undefined {
    return this.removeAt(0);
  }

  /** Removes and returns the item at `index` (as last told to `place`); nothing when no item is there. */
  removeAt(index: number): T | undefined {
    const items = this.items;
    if (!(index >= 0 && index < items.length)) return undefined;
    const item = items[index] as T;
    const last = items.pop() as T;
    if (index < items.length) {
      // The last item takes the hole: it may belong below it (down) or above it (up), never both.
      this.put(index, last);
      this.down(index);
      this.up(index);
    }
    this.place?.(item, -1);
    return item;
  }

  private up(i: number): void {
    const items = this.items;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i] as T, items[parent] as T)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const items = this.items;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < items.length && this.before(items[left] as T, items[least] as T)) least = left;
      if (right < items.length && this.before(items[right] as T, items[least] as T)) least = right;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private swap(i: number, j: number): void {
    const items = this.items;
    const a = items[i] as T;
    this.put(i, items[j] as T);
    this.put(j, a);
  }

  private put(i: number, item: T): void {
    this.items[i] = item;
    this.place?.(item, i);
  }
}
