import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/clock.js';
import { createLimiter } from '../../src/memory/limiter.js';
import { ALGORITHMS } from '../../src/policy.js';
import { attachSharedLimiter, createSharedLimiter } from '../../src/shared/limiter.js';
import { errorCode } from '../support/errors.js';


describe('the shared limiter decides as the memory limiter does', () => {
  const step = fc.record({
    key: fc.constantFrom('a', 'b', 'c', 'é', ''),
    cost: fc.integer({ min: 0, max: 4 }),
    // Mostly forward, sometimes back: a key's time never moves backwards in either.
    move: fc.integer({ min: -50, max: 400 }),
    via: fc.integer({ min: 0, max: 2 }),
    reset: fc.boolean(),
  });
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s, any sequence, through any of three attached views', (algorithm) => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 120 }), fc.constantFrom(undefined, 7), (steps, burst) => {
        const policy = burst === undefined ? { limit: 5, windowMs: 1000 } : { limit: 5, windowMs: 1000, burst };
        const clock = new ManualClock(1_800_000_000_000);
        // Keys kept forever: after the clock steps back, a key the memory limiter dropped
        // as idle comes back fresh, while the shared one (room to spare) keeps its time.
        const memory = createLimiter(algorithm, policy, { clock, idleMs: Infinity });
        const shared = createSharedLimiter(algorithm, policy, { clock, maxKeys: 8 });
        const views = [shared, attachSharedLimiter(shared.handle, { clock }), attachSharedLimiter(shared.handle, { clock })];
        for (const s of steps) {
          clock.set(clock.now() + s.move);
          const view = views[s.via] ?? shared;
          // reset's answer (was the key live?) may differ: the memory limiter drops idle keys
          // as it goes, the shared one when it needs room. What follows may not.
          if (s.reset && s.cost === 0) {
            view.reset(s.key);
            memory.reset(s.key);
          } else expect(view.consume(s.key, s.cost)).toEqual(memory.consume(s.key, s.cost));
        }
      }),
      { seed: 1515, numRuns: 150 },
    );
  });
});

describe('the full table', () => {
  it('drops idle keys to make room, then refuses a new key with SHARED_TABLE_FULL; held keys go on', () => {
    const clock = new ManualClock(0);
    const limiter = createSharedLimiter('fixed-window', { limit: 2, windowMs: 1000 }, { clock, maxKeys: 3 });
    for (const key of ['a', 'b', 'c']) expect(limiter.allow(key)).toBe(true);
    expect(errorCode(() => limiter.consume('d'))).toBe('SHARED_TABLE_FULL');
    expect(limiter.allow('a')).toBe(true);
    clock.set(1000); // a, b and c are idle (a fixed window is full again after one window)
    expect(limiter.allow('d')).toBe(true);
    expect(limiter.size).toBe(1);
  });

  it('prune drops every idle key', () => {
    const clock = new ManualClock(0);
    const limiter = createSharedLimiter('gcra', { limit: 2, windowMs: 1000 }, { clock, maxKeys: 10 });
    for (const key of ['a', 'b', 'c']) limiter.allow(key);
    clock.set(999);
    limiter.allow('c');
    clock.set(1000);
    expect(limiter.prune()).toBe(2);
    expect(limiter.size).toBe(1);
  });
});

describe('refusals', () => {
  it.each([
    ['maxKeys missing', () => createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, {} as never), 'INVALID_ARGUMENT'],
    ['maxKeys 0', () => createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, { maxKeys: 0 }), 'INVALID_ARGUMENT'],
    ['a bad locking', () => createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, { maxKeys: 1, locking: 'none' as never }), 'INVALID_ARGUMENT'],
    ['a bad policy', () => createSharedLimiter('gcra', { limit: 0, windowMs: 1 }, { maxKeys: 1 }), 'INVALID_POLICY'],
    ['a bad algorithm', () => createSharedLimiter('leaky' as never, { limit: 1, windowMs: 1 }, { maxKeys: 1 }), 'UNKNOWN_ALGORITHM'],
    ['not a handle', () => attachSharedLimiter({} as never), 'INVALID_ARGUMENT'],
    ['a buffer of the wrong size', () => attachSharedLimiter({ ...createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, { maxKeys: 4 }).handle, maxKeys: 400 }), 'INVALID_ARGUMENT'],
  ])('%s', (_what, attempt, expected) => {
    expect(errorCode(attempt)).toBe(expected);
  });

  it('a key over maxKeyBytes in UTF-8 is INVALID_KEY; one at the bound is fine', () => {
    const limiter = createSharedLimiter('gcra', { limit: 1, windowMs: 1000 }, { maxKeys: 4, maxKeyBytes: 4 });
    expect(limiter.allow('abcd')).toBe(true);
    expect(limiter.allow('éé')).toBe(true);
    expect(errorCode(() => limiter.allow('abcde'))).toBe('INVALID_KEY');
    expect(errorCode(() => limiter.allow('ééa'))).toBe('INVALID_KEY');
    expect(errorCode(() => limiter.consume(3 as never))).toBe('INVALID_KEY');
    expect(errorCode(() => limiter.consume('a', -1))).toBe('INVALID_COST');
  });
});
