// MinHeap against an exact oracle (a sorted array): any mix of push, pop and removeAt
// leaves the same items in the same order, and `place` always tells where each item is.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MinHeap } from '../src/core/min-heap.js';

interface Item {
  readonly value: number;
  readonly id: number;
  index: number;
}

const before = (a: Item, b: Item) => a.value < b.value || (a.value === b.value && a.id < b.id);

const opArb = fc.oneof(
  fc.record({ op: fc.constant('push' as const), value: fc.integer({ min: 0, max: 20 }) }),
  fc.record({ op: fc.constant('pop' as const) }),
  fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }),
);

describe('MinHeap', () => {
  it('push, pop and removeAt agree with a sorted array, and every item knows its index', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 200 }), (ops) => {
        const heap = new MinHeap<Item>(before, (item, index) => (item.index = index));
        let oracle: Item[] = [];
        let id = 0;
        for (const step of ops) {
          if (step.op === 'push') {
            const item = { value: step.value, id: id++, index: -1 };
            heap.push(item);
            oracle.push(item);
            oracle.sort((a, b) => (before(a, b) ? -1 : 1));
          } else if (step.op === 'pop') {
            const popped = heap.pop();
            expect(popped).toBe(oracle.shift());
            if (popped) expect(popped.index).toBe(-1);
          } else if (oracle.length > 0) {
            const item = oracle[step.pick % oracle.length] as Item;
            expect(heap.removeAt(item.index)).toBe(item);
            expect(item.index).toBe(-1);
            oracle = oracle.filter((other) => other !== item);
          }
          expect(heap.size).toBe(oracle.length);
          expect(heap.peek()).toBe(oracle[0]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('removeAt an index it does not hold (-1, past the end) removes nothing', () => {
    const heap = new MinHeap<number>((a, b) => a < b);
    heap.push(1);
    expect(heap.removeAt(-1)).toBeUndefined();
    expect(heap.removeAt(1)).toBeUndefined();
    expect(heap.size).toBe(1);
  });
});
