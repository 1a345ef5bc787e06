// The shared key table on one thread, driven directly: what a full table costs a new key
// (slots examined, counted by the table, never timed), and that idle keys are still found.
import { describe, expect, it } from 'vitest';
import { checkLimitList } from '../../src/core/limit-list.js';
import { initialise } from '../../src/shared/handle.js';
import { KeyCodec } from '../../src/shared/key-codec.js';
import { SWEEP_STEPS, SharedKeyTable } from '../../src/shared/key-table.js';
import { SLOT, SLOT_WORDS, layout, layoutBytes, type Layout } from '../../src/shared/layout.js';
import { PROBE_LIMIT } from '../../src/shared/limiter.js';
import { LockTokens } from '../../src/shared/lock-words.js';
import { createLocking, type Locking } from '../../src/shared/locking.js';
import { errorCode } from '../support/errors.js';

const IDLE_MS = 1000;
const KEY_BYTES = 16;

/** A table of `maxKeys` rows (and the limiter's 2 x maxKeys slots, rounded up to a power of two). */
function tableOf(maxKeys: number) {
  const slots = 2 ** Math.ceil(Math.log2(2 * maxKeys));
  const spec = {
    algorithm: 'fixed-window' as const,
    policies: checkLimitList('fixed-window', { limit: 1, windowMs: IDLE_MS }),
    maxKeys,
    slots,
    maxKeyBytes: KEY_BYTES,
  };
  const view = layout(spec, new SharedArrayBuffer(layoutBytes(spec)));
  initialise(view);
  const codec = new KeyCodec(KEY_BYTES);
  const table = new SharedKeyTable(
    view,
    createLocking('per-key', view, 1000, new LockTokens(1)),
    codec,
    KEY_BYTES,
    PROBE_LIMIT,
    IDLE_MS,
    () => {},
  );
  /** Decides `key` at `now` as the limiter would (its time is the row's `touched`); the error code when refused. */
  const use = (key: string, now: number): string | undefined =>
    errorCode(() => {
      table.acquire(codec.encode(key), now);
      view.touched[table.row] = now;
      table.release();
    });
  /** Fills every row with keys used at `now`, skipping a key whose probe window is full; returns them. */
  const fill = (now: number): string[] => {
    const keys: string[] = [];
    for (let i = 0; table.size < maxKeys; i++) if (use(`key-${i}`, now) === undefined) keys.push(`key-${i}`);
    return keys;
  };
  return { table, use, fill, slots };
}

describe('a full table of keys in use', () => {
  it.each([[1_000], [10_000], [100_000]])(
    'maxKeys %i: each new key is refused after at most SWEEP_STEPS slots examined',
    (maxKeys) => {
      const { table, use, fill } = tableOf(maxKeys);
      fill(0);
      for (let call = 0; call < 20; call++) {
        const before = table.sweptSlots;
        expect(use(`new-${call}`, IDLE_MS - 1)).toBe('SHARED_TABLE_FULL');
        expect(table.sweptSlots - before).toBeLessThanOrEqual(SWEEP_STEPS);
      }
      expect(table.size).toBe(maxKeys);
    },
  );

  it('keeps refusing after the sweep has been round the whole table: nothing is idle', () => {
    const { table, use, fill, slots } = tableOf(1000);
    fill(0);
    const passes = 2 * Math.ceil(slots / SWEEP_STEPS);
    for (let call = 0; call < passes; call++) expect(use(`new-${call}`, IDLE_MS - 1)).toBe('SHARED_TABLE_FULL');
    expect(table.sweptSlots).toBeGreaterThanOrEqual(2 * slots);
  });
});

describe('idle keys are still reclaimed, a bounded step at a time', () => {
  it('one idle key in a full table is found within slots / SWEEP_STEPS new keys, and only it is dropped', () => {
    const { table, use, fill, slots } = tableOf(1000);
    const [, ...rest] = fill(0);
    // Only the first key goes idle at IDLE_MS: the others are used again at 1.
    for (const key of rest) use(key, 1);
    const now = IDLE_MS;
    let calls = 0;
    while (use(`new-${calls}`, now) === 'SHARED_TABLE_FULL') {
      calls += 1;
      expect(calls, 'the idle key was never reached').toBeLessThanOrEqual(Math.ceil(slots / SWEEP_STEPS));
    }
    expect(table.size).toBe(1000);
    // The newcomer took the idle key's row; every other key is still held.
    for (const key of rest.slice(0, 50)) expect(use(key, now)).toBeUndefined();
    expect(table.size).toBe(1000);
  });

  it('a table whose keys are all idle admits every new key at once', () => {
    const { table, use, fill } = tableOf(1000);
    fill(0);
    for (let call = 0; call < 100; call++) expect(use(`new-${call}`, IDLE_MS)).toBeUndefined();
    expect(table.size).toBeLessThanOrEqual(1000);
  });
});

/** `locks`, recording each lock taken (the method's name and its lock's index). */
function recording(locks: Locking, taken: Array<[string, number]>): Locking {
  return new Proxy(locks, {
    get(target, name) {
      const method = Reflect.get(target, name) as unknown;
      if (typeof method !== 'function') return method;
      return (...args: number[]) => {
        taken.push([String(name), args[0] as number]);
        return (method as (...a: number[]) => unknown).apply(target, args);
      };
    },
  });
}

/** The 64-byte line of the lock word that `name(index)` takes, in `view`. */
function lockLine(view: Layout, name: string, index: number): number {
  if (name === 'slot' || name === 'trySlot')
    return Math.floor((view.slots.byteOffset + (index * SLOT_WORDS + SLOT.lock) * 4) / 64);
  if (name === 'row' || name === 'tryRow') return Math.floor((view.rowLocks.byteOffset + index * 4) / 64);
  throw new Error(`a decision on a known key took ${name}(${index})`);
}

describe('a decision on a known key', () => {
  it("takes a lock word in a line no other limiter's decisions write (keys inserted in turn by two limiters)", () => {
    const maxKeys = 1000;
    const slots = 2 ** Math.ceil(Math.log2(2 * maxKeys));
    const spec = {
      algorithm: 'fixed-window' as const,
      policies: checkLimitList('fixed-window', { limit: 1, windowMs: IDLE_MS }),
      maxKeys,
      slots,
      maxKeyBytes: KEY_BYTES,
    };
    const view = layout(spec, new SharedArrayBuffer(layoutBytes(spec)));
    initialise(view);
    const limiters = [1, 2].map((member) => {
      const taken: Array<[string, number]> = [];
      const codec = new KeyCodec(KEY_BYTES);
      const locks = recording(createLocking('per-key', view, 1000, new LockTokens(member)), taken);
      const table = new SharedKeyTable(view, locks, codec, KEY_BYTES, PROBE_LIMIT, IDLE_MS, () => {});
      const decide = (key: string) => {
        table.acquire(codec.encode(key), 0);
        table.release();
      };
      return { taken, decide, keys: [] as string[] };
    });
    for (let i = 0; i < 400; i++) {
      const limiter = limiters[i % 2] as (typeof limiters)[number];
      limiter.decide(`key-${i}`);
      limiter.keys.push(`key-${i}`);
    }
    const lines = limiters.map((limiter) => {
      limiter.taken.length = 0;
      for (const key of limiter.keys) limiter.decide(key);
      return new Set(
        limiter.taken
          .filter(([name]) => !name.startsWith('release'))
          .map(([name, index]) => lockLine(view, name, index)),
      );
    });
    const [first, second] = lines as [Set<number>, Set<number>];
    expect([...first].filter((line) => second.has(line))).toEqual([]);
  });
});
