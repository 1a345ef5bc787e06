import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ALGORITHMS, ManualClock, createLimiter, type Algorithm } from '../src/index.js';
import { arrivalsArb, gapArb, policyArb, replay } from './support/arbitraries.js';
import { expectRatelabError } from './support/errors.js';

/** The time each algorithm needs to return to full quota for 4 per 1000 ms, burst 6. */
const FULL_AFTER: Record<Algorithm, number> = {
  'token-bucket': 1500, // 6 tokens at 4 per 1000 ms
  gcra: 1500, // tau + T = 6 * 250 ms
  'sliding-log': 1000,
  'fixed-window': 1000,
  'sliding-counter': 2000, // the current window still weighs through the next one
};

describe('idle keys are evicted without timers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sets no timer, however many keys', () => {
    vi.useFakeTimers();
    const limiter = createLimiter('token-bucket', { limit: 2, windowMs: 1000 }, { clock: new ManualClock(0) });
    for (let i = 0; i < 1000; i++) limiter.consume(`key-${i}`);
    expect(vi.getTimerCount()).toBe(0);
    expect(limiter.size).toBe(1000);
  });

  it('drops idle keys during ordinary calls, a couple of slots per call', () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('token-bucket', { limit: 2, windowMs: 1000 }, { clock });
    for (let i = 0; i < 10; i++) limiter.consume(`idle-${i}`);
    clock.set(1000);
    // 11 slots, 2 examined per call: every idle one is gone within 6 calls on another key.
    for (let call = 0; call < 6; call++) limiter.consume('hot');
    expect(limiter.size).toBe(1);
  });

  it.each(ALGORITHMS.map((algorithm) => [algorithm, FULL_AFTER[algorithm]] as const))(
    '%s: an idleMs below the time to full quota is raised to it (%d ms)',
    (algorithm, fullAfter) => {
      const clock = new ManualClock(0);
      const limiter = createLimiter(algorithm, { limit: 4, windowMs: 1000, burst: 6 }, { clock, idleMs: 1 });
      limiter.consume('k', 4);
      clock.set(fullAfter - 1);
      expect(limiter.prune()).toBe(0);
      expect(limiter.size).toBe(1);
      clock.set(fullAfter);
      expect(limiter.prune()).toBe(1);
      expect(limiter.size).toBe(0);
    },
  );

  it('keeps keys for a longer idleMs, and forever for Infinity', () => {
    const clock = new ManualClock(0);
    const longer = createLimiter('fixed-window', { limit: 2, windowMs: 1000 }, { clock, idleMs: 5000 });
    const never = createLimiter('fixed-window', { limit: 2, windowMs: 1000 }, { clock, idleMs: Infinity });
    longer.consume('k');
    never.consume('k');
    clock.set(4999);
    expect([longer.prune(), never.prune()]).toEqual([0, 0]);
    clock.set(5000);
    expect([longer.prune(), never.prune()]).toEqual([1, 0]);
    clock.set(1e12);
    expect(never.size).toBe(1);
  });

  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: eviction never changes a decision (same decisions with it on and off)',
    (algorithm) => {
      const longGap = fc.oneof(gapArb, fc.integer({ min: 0, max: 250 }));
      fc.assert(
        fc.property(
          policyArb,
          arrivalsArb({ keys: ['a', 'b', 'c', 'd'], maxLength: 40 }),
          fc.array(longGap, { minLength: 40, maxLength: 40 }),
          (policy, arrivals, gaps) => {
            // Stretch some gaps so that keys go idle for longer than their time to full quota.
            let shift = 0;
            const spread = arrivals.map((arrival, i) => ({ ...arrival, at: arrival.at + (shift += gaps[i] ?? 0) }));
            expect(replay(algorithm, policy, spread, { idleMs: 1 })).toEqual(
              replay(algorithm, policy, spread, { idleMs: Infinity }),
            );
          },
        ),
        { numRuns: 500 },
      );
    },
  );
});

describe('maxKeys, reset and size', () => {
  it('drops the least recently used key at the cap, forgetting its usage', () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('fixed-window', { limit: 3, windowMs: 1000 }, { clock, maxKeys: 2 });
    limiter.consume('a', 3);
    limiter.consume('b', 3);
    clock.set(10);
    expect(limiter.consume('a').allowed).toBe(false); // a is now the most recently used
    expect(limiter.consume('c', 1).allowed).toBe(true); // evicts b
    expect(limiter.size).toBe(2);
    expect(limiter.consume('a', 0).remaining).toBe(0);
    expect(limiter.consume('b', 0).remaining).toBe(3); // forgotten, so full again (evicts c)
    expect(limiter.consume('c', 0).remaining).toBe(3); // c was evicted in turn (evicts a)
    expect(limiter.size).toBe(2);
  });

  it('reuses slots after eviction without mixing up state', () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('sliding-log', { limit: 3, windowMs: 1000 }, { clock, maxKeys: 3 });
    for (let i = 0; i < 50; i++) {
      clock.set(i);
      expect(limiter.consume(`k${i}`, (i % 3) + 1)).toMatchObject({ allowed: true, remaining: 2 - (i % 3) });
      expect(limiter.size).toBe(Math.min(i + 1, 3));
    }
    expect(limiter.consume('k49', 0).remaining).toBe(1);
    expect(limiter.consume('k48', 0).remaining).toBe(2);
  });

  it('reset(key) forgets one key: its next request starts full', () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('gcra', { limit: 2, windowMs: 1000 }, { clock });
    limiter.consume('a', 2);
    limiter.consume('b', 2);
    expect(limiter.size).toBe(2);
    expect(limiter.reset('a')).toBe(true);
    expect(limiter.reset('a')).toBe(false);
    expect(limiter.reset('never-seen')).toBe(false);
    expect(limiter.size).toBe(1);
    expect(limiter.consume('a', 2).allowed).toBe(true);
    expect(limiter.consume('b', 1).allowed).toBe(false);
  });

  it('size counts live keys', () => {
    const limiter = createLimiter('sliding-counter', { limit: 2, windowMs: 1000 }, { clock: new ManualClock(0) });
    expect(limiter.size).toBe(0);
    limiter.consume('a', 0);
    limiter.allow('b');
    limiter.allow('b');
    expect(limiter.size).toBe(2);
  });
});

describe('keys are strings, and maxKeys holds under any sequence', () => {
  it.each([
    ['undefined', undefined],
    ['null', null],
    ['a number', 7],
    ['an object', { id: 'a' }],
  ])('consume, allow and reset refuse %s as a key with INVALID_KEY, changing nothing', (_what, key) => {
    const limiter = createLimiter(
      'token-bucket',
      { limit: 2, windowMs: 1000 },
      { clock: new ManualClock(0), maxKeys: 2 },
    );
    limiter.consume('a');
    expectRatelabError(() => limiter.consume(key as unknown as string), 'INVALID_KEY', 'key');
    expectRatelabError(() => limiter.allow(key as unknown as string), 'INVALID_KEY', 'key');
    expectRatelabError(() => limiter.reset(key as unknown as string), 'INVALID_KEY', 'key');
    expect(limiter.size).toBe(1);
  });

  it('a refused key does not break the cap (200,000 keys after consume(undefined) stayed 200,001 live)', () => {
    const limiter = createLimiter(
      'token-bucket',
      { limit: 2, windowMs: 1000 },
      { clock: new ManualClock(0), maxKeys: 100 },
    );
    expect(() => limiter.consume(undefined as unknown as string)).toThrow();
    for (let i = 0; i < 1000; i++) limiter.consume(`key-${i}`);
    expect(limiter.size).toBe(100);
  });

  it('keeps exactly the most recently used keys, up to maxKeys, whatever the sequence of calls', () => {
    // Keys that look like sentinels or object properties are ordinary keys.
    const keys = ['a', 'b', 'c', '', 'undefined', '__proto__', 'constructor', 'toString'];
    const call = fc.record({
      op: fc.constantFrom('consume', 'allow', 'reset'),
      key: fc.constantFrom(...keys),
      gap: fc.integer({ min: 0, max: 3 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(call, { maxLength: 60 }), (maxKeys, calls) => {
        const clock = new ManualClock(0);
        const limiter = createLimiter(
          'fixed-window',
          { limit: 2, windowMs: 1_000_000 },
          { clock, maxKeys, idleMs: Infinity },
        );
        let recent: string[] = []; // the model: live keys, least recent first
        for (const { op, key, gap } of calls) {
          clock.advance(gap);
          recent = recent.filter((live) => live !== key);
          if (op === 'reset') limiter.reset(key);
          else {
            if (op === 'consume') limiter.consume(key, 0);
            else limiter.allow(key);
            recent.push(key);
            if (recent.length > maxKeys) recent.shift();
          }
          expect(limiter.size).toBe(recent.length);
        }
        // The keys the model holds are the ones live: resetting each empties the limiter.
        for (const key of recent) expect(limiter.reset(key)).toBe(true);
        expect(limiter.size).toBe(0);
      }),
    );
  });
});
