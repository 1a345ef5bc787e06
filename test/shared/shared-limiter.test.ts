import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SharedLimiterHandle } from '../../src/shared/handle.js';
import { MAX_BUFFER_BYTES } from '../../src/shared/layout.js';
import { expectRatelabError } from '../support/errors.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLimiter } from '../../src/memory/limiter.js';
import { ALGORITHMS, type LimitSpec, type PolicyInput } from '../../src/core/policy.js';
import { attachSharedLimiter, createSharedLimiter, type SharedRateLimiter } from '../../src/shared/limiter.js';
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
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s, any sequence, through any of three attached views',
    (algorithm) => {
      fc.assert(
        fc.property(fc.array(step, { maxLength: 120 }), fc.constantFrom(undefined, 7), (steps, burst) => {
          const policy = burst === undefined ? { limit: 5, windowMs: 1000 } : { limit: 5, windowMs: 1000, burst };
          const clock = new ManualClock(1_800_000_000_000);
          // Keys kept forever: after the clock steps back, a key the memory limiter dropped
          // as idle comes back fresh, while the shared one (room to spare) keeps its time.
          const memory = createLimiter(algorithm, policy, { clock, idleMs: Infinity });
          const shared = createSharedLimiter(algorithm, policy, { clock, maxKeys: 8 });
          const views = [
            shared,
            attachSharedLimiter(shared.handle, { clock }),
            attachSharedLimiter(shared.handle, { clock }),
          ];
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
    },
  );
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

describe('handles: the buffer describes itself', () => {
  const policy = { limit: 2, windowMs: 60_000 };
  const real = () => createSharedLimiter('gcra', policy, { maxKeys: 64 });

  it('a real handle attaches (also after a structured clone, as postMessage sends it) and shares the quota', () => {
    const creator = real();
    const views = [attachSharedLimiter(creator.handle), attachSharedLimiter(structuredClone(creator.handle))];
    expect(creator.allow('k')).toBe(true);
    expect(views[0]?.allow('k')).toBe(true);
    expect(views[1]?.allow('k')).toBe(false);
    expect(creator.allow('k')).toBe(false);
  });

  // Each row: a real handle with one field changed, and the field the refusal names. Every
  // one disagrees with the memory it points at, so attaching must refuse it rather than
  // decide on a misread buffer (a spent key admitted again, a second row per key, a creator
  // reading past the end) or with locks that no longer exclude the other threads'.
  it.each<[string, (handle: SharedLimiterHandle) => unknown, string]>([
    ['policy.limit', (h) => ({ ...h, policy: { ...h.policy, limit: 3 } }), 'handle.policy.limit'],
    ['policy.windowMs', (h) => ({ ...h, policy: { ...h.policy, windowMs: 1000 } }), 'handle.policy.windowMs'],
    ['policy.burst', (h) => ({ ...h, policy: { ...h.policy, burst: 50 } }), 'handle.policy.burst'],
    ['policy.burst NaN', (h) => ({ ...h, policy: { ...h.policy, burst: Number.NaN } }), 'handle.policy.burst'],
    ['a policy that is not one', (h) => ({ ...h, policy: null }), 'handle.policy.limit'],
    ['algorithm', (h) => ({ ...h, algorithm: 'token-bucket' }), 'handle.algorithm'],
    ['algorithm unknown', (h) => ({ ...h, algorithm: 'leaky' }), 'handle.algorithm'],
    ['maxKeys smaller', (h) => ({ ...h, maxKeys: 2 }), 'handle.maxKeys'],
    ['maxKeys larger', (h) => ({ ...h, maxKeys: 65 }), 'handle.maxKeys'],
    ['maxKeys as text', (h) => ({ ...h, maxKeys: '64' }), 'handle.maxKeys'],
    ['slots smaller', (h) => ({ ...h, slots: 64 }), 'handle.slots'],
    ['slots larger', (h) => ({ ...h, slots: 256 }), 'handle.slots'],
    ['maxKeyBytes', (h) => ({ ...h, maxKeyBytes: 4 }), 'handle.maxKeyBytes'],
    ['locking', (h) => ({ ...h, locking: 'global' }), 'handle.locking'],
    ['lockLeaseMs 0', (h) => ({ ...h, lockLeaseMs: 0 }), 'handle.lockLeaseMs'],
    ['lockLeaseMs longer', (h) => ({ ...h, lockLeaseMs: 5000 }), 'handle.lockLeaseMs'],
    ['idleMs shorter', (h) => ({ ...h, idleMs: 1 }), 'handle.idleMs'],
    ['kind', (h) => ({ ...h, kind: 'something-else' }), 'handle'],
    [
      'the buffer of another limiter',
      (h) => ({ ...h, buffer: createSharedLimiter('gcra', policy, { maxKeys: 64, maxKeyBytes: 64 }).handle.buffer }),
      'handle.maxKeyBytes',
    ],
    ['a buffer of zeros', (h) => ({ ...h, buffer: new SharedArrayBuffer(h.buffer.byteLength) }), 'handle'],
    ['a buffer too short for its header', (h) => ({ ...h, buffer: new SharedArrayBuffer(8) }), 'handle'],
    ['a buffer of an odd length', (h) => ({ ...h, buffer: new SharedArrayBuffer(h.buffer.byteLength + 3) }), 'handle'],
  ])('%s changed: INVALID_ARGUMENT naming it, and the creator is unaffected', (_field, forge, field) => {
    const creator = real();
    expect(creator.allow('k')).toBe(true);
    expectRatelabError(
      () => attachSharedLimiter(forge(creator.handle) as SharedLimiterHandle),
      'INVALID_ARGUMENT',
      field,
    );
    expect(creator.allow('k')).toBe(true);
    expect(creator.allow('k')).toBe(false);
  });
});

describe('refusals', () => {
  it.each([
    ['maxKeys missing', () => createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, {} as never), 'INVALID_ARGUMENT'],
    ['maxKeys 0', () => createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, { maxKeys: 0 }), 'INVALID_ARGUMENT'],
    [
      'a bad locking',
      () => createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, { maxKeys: 1, locking: 'none' as never }),
      'INVALID_ARGUMENT',
    ],
    ['a bad policy', () => createSharedLimiter('gcra', { limit: 0, windowMs: 1 }, { maxKeys: 1 }), 'INVALID_POLICY'],
    [
      'a bad algorithm',
      () => createSharedLimiter('leaky' as never, { limit: 1, windowMs: 1 }, { maxKeys: 1 }),
      'UNKNOWN_ALGORITHM',
    ],
    ['not a handle', () => attachSharedLimiter({} as never), 'INVALID_ARGUMENT'],
    [
      'a buffer of the wrong size',
      () =>
        attachSharedLimiter({
          ...createSharedLimiter('gcra', { limit: 1, windowMs: 1 }, { maxKeys: 4 }).handle,
          maxKeys: 400,
        }),
      'INVALID_ARGUMENT',
    ],
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

describe("the buffer's size", () => {
  // The buffer is allocated whole at creation: past MAX_BUFFER_BYTES the creator is told
  // what it would need, before the engine fails on it (a RangeError) or the host runs out.
  // Each row: what dominates the buffer (timestamps, or key bytes), a lower bound on it.
  it.each([
    [
      'a sliding log of limit 1e6 for 5e4 keys (8 MB a key)',
      'sliding-log',
      { limit: 1e6, windowMs: 60_000 },
      { maxKeys: 5e4 },
      5e4 * 1e6 * 8,
    ],
    [
      'a table of 2^24 keys of 4096 bytes (64 GiB of keys)',
      'gcra',
      { limit: 10, windowMs: 1000 },
      { maxKeys: 2 ** 24, maxKeyBytes: 4096 },
      2 ** 24 * 4096,
    ],
    [
      'a sliding log of limit 2^20 for 2^11 keys (past the timestamps a shared log can address)',
      'sliding-log',
      { limit: 2 ** 20, windowMs: 1000 },
      { maxKeys: 2 ** 11 },
      2 ** 31 * 8,
    ],
    [
      'a sliding log of limit 1024 for 2^17 keys (1 GiB of timestamps alone)',
      'sliding-log',
      { limit: 1024, windowMs: 1000 },
      { maxKeys: 2 ** 17 },
      2 ** 30,
    ],
  ] as const)(
    '%s: POLICY_TOO_LARGE at creation, naming the bytes it needs and the bound',
    (_what, algorithm, policy, options, atLeast) => {
      const { message } = expectRatelabError(
        () => createSharedLimiter(algorithm, policy, options),
        'POLICY_TOO_LARGE',
        'maxKeys',
      );
      const needs = Number(/needs (\d+) bytes/.exec(message)?.[1]);
      expect(needs).toBeGreaterThan(MAX_BUFFER_BYTES);
      expect(needs).toBeGreaterThanOrEqual(atLeast);
      expect(needs).toBeLessThan(atLeast * 1.1);
      expect(message).toContain(`at most ${MAX_BUFFER_BYTES} bytes`);
    },
  );

  it('a limiter under the bound is made: sizes are measured, not guessed', () => {
    // 4096 keys of a 16,384-entry sliding log: 512 MiB of timestamps.
    const limiter = createSharedLimiter(
      'sliding-log',
      { limit: 2 ** 14, windowMs: 1000 },
      { maxKeys: 2 ** 12, maxKeyBytes: 8 },
    );
    expect(limiter.handle.buffer.byteLength).toBeLessThanOrEqual(MAX_BUFFER_BYTES);
    expect(limiter.handle.buffer.byteLength).toBeGreaterThan(2 ** 29);
    expect(limiter.allow('k')).toBe(true);
  });
});

describe('keys holding lone surrogates', () => {
  it('take 3 bytes for each (WTF-8), as the U+FFFD of UTF-8 would, and are keys of their own', () => {
    const limiter = createSharedLimiter('gcra', { limit: 1, windowMs: 1000 }, { maxKeys: 4, maxKeyBytes: 4 });
    expect(limiter.allow('a\uD800')).toBe(true);
    expect(limiter.allow('a\uFFFD')).toBe(true);
    expect(limiter.allow('a\uD800')).toBe(false);
    expectRatelabError(() => limiter.allow('ab\uDC00'), 'INVALID_KEY', 'key');
  });
});

describe('several limits on one key: one row, one lock, a self-describing buffer', () => {
  // 3 per second (GCRA) and 5 per hour (sliding log), named: each key's row holds both
  // limits' columns, and the buffer's description says both, so a thread attaching learns them.
  const LIMITS: LimitSpec[] = [
    { limit: 3, windowMs: 1000, name: 'second' },
    { limit: 5, windowMs: 3_600_000, name: 'hour', algorithm: 'sliding-log' },
  ];
  const real = (clock?: ManualClock) => createSharedLimiter('gcra', LIMITS, { clock, maxKeys: 64 });

  it('a thread attaching learns the limits from the handle its buffer vouches for, and shares the quota', () => {
    const clock = new ManualClock(0);
    const creator = real(clock);
    const other = attachSharedLimiter(structuredClone(creator.handle), { clock });
    expect(other.policies).toEqual([
      { name: 'second', algorithm: 'gcra', limit: 3, windowMs: 1000, capacity: 3 },
      { name: 'hour', algorithm: 'sliding-log', limit: 5, windowMs: 3_600_000, capacity: 5 },
    ]);
    expect(other.limits).toEqual({ limit: 3, windowMs: 1000, capacity: 3 });
    // Each row: who asks, when, and what is left of each limit after.
    const rows: Array<[SharedRateLimiter, number, boolean, [number, number], string]> = [
      [creator, 0, true, [2, 4], 'both limits admit and take'],
      [other, 0, true, [1, 3], 'the other thread takes from the same row'],
      [creator, 0, true, [0, 2], 'the per-second limit is spent'],
      [other, 0, false, [0, 2], 'the hour admits, the second denies: neither takes'],
      [other, 1000, true, [2, 1], 'a second later: the per-second limit is back'],
      [creator, 1000, true, [1, 0], 'the hour is spent'],
      [other, 1000, false, [1, 0], 'the second admits, the hour denies: neither takes'],
    ];
    for (const [i, [limiter, at, allowed, remaining, why]] of rows.entries()) {
      clock.set(at);
      const decision = limiter.consume('k');
      expect(
        { allowed: decision.allowed, remaining: decision.limits?.map((l) => l.remaining) },
        `row ${i + 1}: ${why}`,
      ).toEqual({ allowed, remaining });
    }
  });

  it('a key costs the sum of its limits’ columns and no more', () => {
    const bytes = (policy: PolicyInput) => createSharedLimiter('gcra', policy, { maxKeys: 64 }).stateBytesPerKey;
    const second = createLimiter('gcra', LIMITS[0] as LimitSpec).stateBytesPerKey;
    const hour = createLimiter('sliding-log', LIMITS[1] as LimitSpec).stateBytesPerKey;
    // The memory limiter's figure is the meter's columns and 8 B of time: the parts' columns add up.
    expect(bytes(LIMITS) - bytes(LIMITS[0] as LimitSpec)).toBe(hour - 8);
    expect(bytes(LIMITS) - bytes([LIMITS[1] as LimitSpec])).toBe(second - 8);
  });

  // Each row: a real composite handle with one part changed, and the field the refusal names.
  it.each<[string, (policy: LimitSpec[]) => unknown, string, string]>([
    ['a window', (p) => [p[0], { ...p[1], windowMs: 60_000 }], 'handle.policy[1].windowMs', 'created with 3600000'],
    ['a limit', (p) => [{ ...p[0], limit: 4 }, p[1]], 'handle.policy[0].limit', 'created with 3'],
    [
      'an algorithm',
      (p) => [p[0], { ...p[1], algorithm: 'gcra' }],
      'handle.policy[1].algorithm',
      'created with "sliding-log"',
    ],
    ['a name', (p) => [p[0], { ...p[1], name: 'day' }], 'handle.policy[1].name', 'created with "hour"'],
    ['a burst added', (p) => [{ ...p[0], burst: 6 }, p[1]], 'handle.policy[0].burst', 'created with undefined'],
    ['a limit dropped', (p) => [p[0]], 'handle.policy', 'created with a list of 2 limits'],
    ['one policy for the list', (p) => p[0], 'handle.policy', 'created with a list of 2 limits'],
    ['an entry that is not one', (p) => [p[0], null], 'handle.policy[1].algorithm', 'created with "sliding-log"'],
  ])('%s changed in the handle: INVALID_ARGUMENT naming the entry', (_what, forge, field, created) => {
    const creator = real();
    const handle = { ...creator.handle, policy: forge(creator.handle.policy as LimitSpec[]) };
    const { message } = expectRatelabError(
      () => attachSharedLimiter(handle as SharedLimiterHandle),
      'INVALID_ARGUMENT',
      field,
    );
    expect(message).toContain(`but its buffer was ${created}`);
  });

  it.each<[string, PolicyInput | undefined, string | undefined]>([
    ['the same limits', LIMITS, undefined],
    ['no expectation', undefined, undefined],
    [
      'another window',
      [LIMITS[0] as LimitSpec, { ...(LIMITS[1] as LimitSpec), windowMs: 60_000 }],
      'policy[1].windowMs: the shared limiter enforces 3600000, this thread asked for 60000',
    ],
    [
      'the hourly limit under the limiter’s algorithm',
      [LIMITS[0] as LimitSpec, { ...(LIMITS[1] as LimitSpec), algorithm: undefined }],
      'policy[1].algorithm: the shared limiter enforces "sliding-log", this thread asked for "gcra"',
    ],
    [
      'one of the two',
      { limit: 3, windowMs: 1000 },
      'policy: the shared limiter enforces 2 limits, this thread asked for 1 limit',
    ],
  ])('attaching expecting %s: %s', (_what, policy, refusal) => {
    const creator = real();
    const attach = () => attachSharedLimiter(creator.handle, policy === undefined ? {} : { policy });
    if (refusal === undefined) {
      expect(attach().policies).toEqual(creator.policies);
      return;
    }
    const { message } = expectRatelabError(attach, 'INVALID_POLICY', refusal.slice(0, refusal.indexOf(':')));
    expect(message).toBe(refusal);
  });
});
