/**
 * A binary min-heap ordered by `before` (a strict "comes first"): O(log n) push and pop.
 * The core's own, since the core entry loads no third-party module (the lab uses flatqueue).
 */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  /** The first item, without removing it. */
  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(items[i] as T, items[parent] as T)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  /** Removes and returns the first item. */
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0) {
      items[0] = last as T;
      this.down(0);
    }
    return top;
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
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
}
