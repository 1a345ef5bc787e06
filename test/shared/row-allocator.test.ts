// How the shared table hands out rows to the limiters attached to it (one per thread):
// keys of two limiters never share a 64-byte line of row state, whatever the order in
// which they insert, and no row is lost to a limiter that claimed more than it used.
// Addresses and counts only, never durations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { specOf } from '../../src/shared/handle.js';
import { KeyCodec } from '../../src/shared/key-codec.js';
import { SLOT, SLOT_WORDS, layout, type Layout } from '../../src/shared/layout.js';
import { attachSharedLimiter, createSharedLimiter, type SharedRateLimiter } from '../../src/shared/limiter.js';
import { SharedColumns } from '../../src/shared/shared-columns.js';
import { errorCode } from '../support/errors.js';

const LINE = 64;
const POLICY = { limit: 5, windowMs: 60_000 };

/** The row holding `key` in the table `view` (read as a test reads memory: no lock, nothing racing). */
function rowOf(view: Layout, codec: KeyCodec, key: string): number {
  const hash = codec.encode(key);
  const slots = view.slots.length / SLOT_WORDS;
  for (let i = 0; i < slots; i++) {
    const at = ((hash + i) & (slots - 1)) * SLOT_WORDS;
    if (view.slots[at + SLOT.hash] === hash) return view.slots[at + SLOT.row] as number;
  }
  throw new Error(`${key} is not in the table`);
}

/** Limiters attached to one table (the first creates it), each as a thread would hold one. */
function limitersOn(maxKeys: number, count: number) {
  const clock = new ManualClock(0);
  const first = createSharedLimiter('token-bucket', POLICY, { clock, maxKeys });
  const limiters: SharedRateLimiter[] = [first];
  while (limiters.length < count) limiters.push(attachSharedLimiter(first.handle, { clock }));
  const spec = specOf(first.handle);
  const view = layout(spec, first.handle.buffer);
  const codec = new KeyCodec(spec.maxKeyBytes);
  return { limiters, view, row: (key: string) => rowOf(view, codec, key) };
}

/** The 64-byte lines that `rows` occupy in a column of `bytes`-wide entries starting at byte `offset`. */
function lines(rows: readonly number[], offset: number, bytes: number): Set<number> {
  return new Set(rows.map((row) => Math.floor((offset + row * bytes) / LINE)));
}

describe('rows of two limiters never share a cache line', () => {
  it("for any order in which 2 to 4 limiters insert their keys, each line of row state holds one limiter's keys", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.nat(3), { minLength: 100, maxLength: 400 }),
        (count, turns) => {
          // Room for every key: the hand-out, not a full table, is what is tested.
          const { limiters, view, row } = limitersOn(512, count);
          const owned = limiters.map((): number[] => []);
          turns.forEach((turn, i) => {
            const who = turn % count;
            limiters[who]?.allow(`t${who}-${i}`);
            owned[who]?.push(row(`t${who}-${i}`));
          });
          // The columns written at every decision: the key's time (8 B) and the meter's (4 or
          // 8 B per row, each column starting on a line like `touched`).
          expect(view.touched.byteOffset % LINE).toBe(0);
          for (const bytes of [4, 8]) {
            const seen = new Map<number, number>();
            owned.forEach((rows, who) => {
              for (const line of lines(rows, view.touched.byteOffset, bytes)) {
                expect(seen.get(line) ?? who, `a ${bytes}-byte column's line holds keys of two limiters`).toBe(who);
                seen.set(line, who);
              }
            });
          }
        },
      ),
      { seed: 2211, numRuns: 100 },
    );
  });

  it('every column carved from the buffer starts on a 64-byte line, whatever the lengths before it', () => {
    const columns = new SharedColumns(new SharedArrayBuffer(1 << 16), 12);
    for (const [type, length] of [
      [Float64Array, 3],
      [Int32Array, 5],
      [Uint32Array, 1],
      [Float64Array, 17],
    ] as const) {
      expect(columns.grow(new type(0), length).byteOffset % LINE).toBe(0);
    }
  });
});

describe('no row is lost to a limiter that claimed more than it used', () => {
  it('two limiters insert one key each, a third fills the rest: exactly maxKeys keys, then SHARED_TABLE_FULL', () => {
    const { limiters } = limitersOn(40, 3);
    const [a, b, c] = limiters as [SharedRateLimiter, SharedRateLimiter, SharedRateLimiter];
    expect(a.allow('a')).toBe(true);
    expect(b.allow('b')).toBe(true);
    for (let i = 0; i < 38; i++)
      expect(
        errorCode(() => c.allow(`c-${i}`)),
        `key ${i + 3} of 40`,
      ).toBeUndefined();
    expect(a.size).toBe(40);
    for (const limiter of limiters) expect(errorCode(() => limiter.allow('one more'))).toBe('SHARED_TABLE_FULL');
  });

  it('with more limiters than lanes, every row is still used: 70 limiters one key each, then one fills the rest', () => {
    const { limiters } = limitersOn(2000, 70);
    limiters.forEach((limiter, i) => expect(limiter.allow(`own-${i}`)).toBe(true));
    const last = limiters[69] as SharedRateLimiter;
    for (let i = 0; i < 2000 - 70; i++) expect(errorCode(() => last.allow(`rest-${i}`))).toBeUndefined();
    expect(last.size).toBe(2000);
    expect(errorCode(() => last.allow('one more'))).toBe('SHARED_TABLE_FULL');
  });

  it('a key reset gives its row back: the table fills to maxKeys again', () => {
    const { limiters } = limitersOn(20, 2);
    const [a, b] = limiters as [SharedRateLimiter, SharedRateLimiter];
    for (let i = 0; i < 20; i++) (i % 2 === 0 ? a : b).allow(`k-${i}`);
    expect(errorCode(() => a.allow('new'))).toBe('SHARED_TABLE_FULL');
    expect(b.reset('k-0')).toBe(true);
    expect(a.size).toBe(19);
    expect(a.allow('new')).toBe(true);
    expect(a.size).toBe(20);
  });
});
