// The shared limiter on real threads (issue 15): exact counts under true parallelism, the
// sliding log's exact answer under seeded random interleavings, and a dead lock holder
// that does not wedge the table. Counts and decisions only, never durations.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHMS, type PolicyInput } from '../../src/core/policy.js';
import { createSharedLimiter, type SharedRateLimiter } from '../../src/shared/limiter.js';
import { oracleFor } from '../support/oracles.js';
import { TestThread } from '../support/thread-pool.js';

let threads: TestThread[] = [];

/**
 * A time every thread reads (`time[0]`, in a shared buffer), moved only by the test: a window
 * aligned to the epoch (the fixed window's) then cannot end in the middle of a test, as one
 * of an hour on the system clock does at every hour.
 */
function sharedClock(): { clock: SharedArrayBuffer; time: Float64Array; now: () => number } {
  const clock = new SharedArrayBuffer(8);
  const time = new Float64Array(clock);
  return { clock, time, now: () => time[0] as number };
}

beforeAll(async () => {
  threads = await Promise.all([0, 1, 2, 3].map(() => TestThread.start()));
});

afterAll(async () => {
  await Promise.all(threads.map((thread) => thread.stop()));
});

describe('4 threads x 25,000 calls on 10 keys, limit 1,000 per hour', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s admits exactly 10,000', async (algorithm) => {
    const { clock, now } = sharedClock();
    const limiter = createSharedLimiter(algorithm, { limit: 1000, windowMs: 3_600_000 }, { maxKeys: 16, clock: now });
    await Promise.all(threads.map((thread) => thread.ask({ type: 'attach', handle: limiter.handle, clock })));
    const keys = Array.from({ length: 10 }, (_, i) => `user-${i}`);
    const admitted = await Promise.all(
      threads.map((thread) => thread.ask<number>({ type: 'count', keys, calls: 25_000 })),
    );
    expect(admitted.reduce((sum, n) => sum + n, 0)).toBe(10_000);
    expect(limiter.size).toBe(10);
    // Every key is spent: the test thread's own view agrees.
    for (const key of keys) expect(limiter.consume(key, 0).remaining).toBe(0);
  });
});

describe('4 threads filling one table at once, each with keys of its own', () => {
  it('every row goes to one key: exactly maxKeys keys fit, each admitted once, then SHARED_TABLE_FULL', async () => {
    // 10,000 rows in 625 chunks: the threads claim chunks at once, and the last rows may be
    // borrowed from other threads' chunks.
    const { clock, now } = sharedClock();
    const limiter = createSharedLimiter(
      'fixed-window',
      { limit: 1, windowMs: 3_600_000 },
      { maxKeys: 10_000, clock: now },
    );
    await Promise.all(threads.map((thread) => thread.ask({ type: 'attach', handle: limiter.handle, clock })));
    const own = threads.map((_, t) => Array.from({ length: 2500 }, (_, i) => `t${t}-${i}`));
    const admitted = await Promise.all(
      threads.map((thread, t) => thread.ask<number>({ type: 'count', keys: own[t] as string[], calls: 2500 })),
    );
    expect(admitted).toEqual([2500, 2500, 2500, 2500]);
    expect(limiter.size).toBe(10_000);
    // Had two keys been given one row, the second would have found its quota spent.
    for (const key of own.flat()) expect(limiter.consume(key, 0).remaining).toBe(0);
    expect(() => limiter.allow('one more')).toThrow(expect.objectContaining({ code: 'SHARED_TABLE_FULL' }));
  });
});

describe('4 threads hammering two limits on one key (5 per second, 20 per hour), time held still per round', () => {
  // The threads' clock is one shared number the test moves between rounds, so each round's
  // 4 x 200 calls race on one row at one instant: the per-second limit admits 5 per round
  // until the hourly one is spent. Rounds 2 s apart: every algorithm's second is whole again.
  const ROUNDS: Array<{ at: number; admitted: number; why: string }> = [
    { at: 0, admitted: 5, why: 'the per-second limit binds' },
    { at: 2000, admitted: 5, why: 'a new second: 10 of the hour' },
    { at: 4000, admitted: 5, why: '15 of the hour' },
    { at: 6000, admitted: 5, why: 'the hour is spent: 20' },
    { at: 8000, admitted: 0, why: 'the second would admit, the hour denies, and takes nothing' },
    { at: 10_000, admitted: 0, why: 'still: never more than 20 in the hour' },
  ];
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s admits exactly 20 in all, 5 a round', async (algorithm) => {
    const { clock, time, now } = sharedClock();
    const limiter = createSharedLimiter(
      algorithm,
      [
        { limit: 5, windowMs: 1000 },
        { limit: 20, windowMs: 3_600_000 },
      ],
      { maxKeys: 16, clock: now },
    );
    await Promise.all(threads.map((thread) => thread.ask({ type: 'attach', handle: limiter.handle, clock })));
    let total = 0;
    for (const [i, round] of ROUNDS.entries()) {
      time[0] = round.at;
      const admitted = await Promise.all(
        threads.map((thread) => thread.ask<number>({ type: 'count', keys: ['k'], calls: 200 })),
      );
      const sum = admitted.reduce((a, b) => a + b, 0);
      total += sum;
      expect(sum, `round ${i + 1} at ${round.at} ms: ${round.why}`).toBe(round.admitted);
    }
    expect(total).toBe(20);
    // The test thread's view of the row agrees: the hour is spent, the second is not.
    expect(limiter.consume('k', 0).limits?.map((l) => l.remaining)).toEqual([5, 0]);
  });
});

type Result = [allowed: boolean, remaining: number, retryAfterMs: number, resetMs: number];

/**
 * The order in which one key's decisions of one round (all at the same time) took effect,
 * recovered from what they answered: at a fixed time each admission of `cost` lowers
 * `remaining` by exactly `cost`, so the admissions form one chain from the remaining
 * before the round down; each denial (and each cost-0 ask) goes where the chain was at its `remaining`. Fails if
 * no such order exists (two admissions saw the same state: a lost update).
 */
function linearise(
  before: number,
  calls: Array<{ cost: number; result: Result }>,
): Array<{ cost: number; result: Result }> {
  const changes = (c: { cost: number; result: Result }) => c.result[0] && c.cost > 0;
  const admitted = calls.filter(changes).sort((a, b) => b.result[1] - a.result[1]);
  const order: Array<{ cost: number; result: Result }> = [];
  // Denials and cost-0 asks change nothing: they go wherever the chain was at their answer.
  const denied = calls.filter((c) => !changes(c));
  let state = before;
  const flush = () => {
    for (const d of denied.filter((c) => c.result[1] === state)) order.push(d);
  };
  flush();
  for (const a of admitted) {
    expect(a.result[1], 'an admission that does not follow the one before: lost update').toBe(state - a.cost);
    state = a.result[1];
    order.push(a);
    flush();
  }
  expect(order.length, 'a denial that matches no state of the key').toBe(calls.length);
  return order;
}

describe('the sliding log under random interleavings (seeded, real threads)', () => {
  it('gives exactly the oracle answer, key by key, in the order the decisions took effect', async () => {
    const policy = { limit: 40, windowMs: 100 };
    const round = fc.record({
      advance: fc.integer({ min: 0, max: 60 }),
      ops: fc.array(
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 2 })), {
          minLength: 1,
          maxLength: 150,
        }),
        { minLength: 4, maxLength: 4 },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(round, { minLength: 1, maxLength: 8 }), async (rounds) => {
        const limiter = createSharedLimiter('sliding-log', policy, { maxKeys: 8 });
        const clock = new SharedArrayBuffer(8);
        const time = new Float64Array(clock);
        time[0] = 1000;
        await Promise.all(threads.map((thread) => thread.ask({ type: 'attach', handle: limiter.handle, clock })));
        const oracles = new Map(['a', 'b', 'c'].map((key) => [key, oracleFor('sliding-log', policy)]));
        for (const { advance, ops } of rounds) {
          time[0] = (time[0] as number) + advance;
          const results = await Promise.all(
            threads.map((thread, i) => thread.ask<Result[]>({ type: 'run', ops: ops[i] as Array<[string, number]> })),
          );
          for (const [key, oracle] of oracles) {
            const calls = ops.flatMap((list, i) =>
              list
                .map((op, j) => ({ key: op[0], cost: op[1], result: (results[i] as Result[])[j] as Result }))
                .filter((c) => c.key === key),
            );
            const before = oracle.consume(time[0] as number, 0).remaining;
            for (const call of linearise(before, calls)) {
              const expected = oracle.consume(time[0] as number, call.cost);
              expect(call.result).toEqual([
                expected.allowed,
                expected.remaining,
                expected.retryAfterMs,
                expected.resetMs,
              ]);
            }
          }
        }
      }),
      { seed: 15, numRuns: 60 },
    );
  });
});

describe('a thread that dies holding a lock', () => {
  /** A token bucket of `policy` whose key `victim` (one unit taken) is locked by a thread that then died. */
  async function abandoned(policy: PolicyInput): Promise<SharedRateLimiter> {
    const limiter = createSharedLimiter('token-bucket', policy, { maxKeys: 64, lockLeaseMs: 50 });
    const doomed = await TestThread.start();
    await doomed.ask({ type: 'attach', handle: limiter.handle });
    expect(limiter.consume('victim').allowed).toBe(true);
    await doomed.ask({ type: 'hold', key: 'victim' });
    await doomed.stop();
    return limiter;
  }

  it('wedges no other key, and its own key is taken over after the lease, spent (never over the limit)', async () => {
    const limiter = await abandoned({ limit: 5, windowMs: 60_000 });
    // Other keys: decided at once, many times, by this thread and the others.
    await Promise.all(threads.map((thread) => thread.ask({ type: 'attach', handle: limiter.handle })));
    const others = await Promise.all(
      threads.map((thread, i) =>
        thread.ask<number>({ type: 'count', keys: [`other-${i}`, 'shared-other'], calls: 20 }),
      ),
    );
    expect(others.reduce((a, b) => a + b, 0)).toBe(4 * 5 + 5);
    // The victim's key: the next call waits out the lease, takes the lock over, and finds
    // the key repaired as spent (its dead holder may have left it half-written).
    const decision = limiter.consume('victim');
    expect(decision.allowed).toBe(false);
    expect(decision.remaining).toBe(0);
    // And the lock is healthy again for every thread.
    const after = await Promise.all(
      threads.map((thread) => thread.ask<number>({ type: 'count', keys: ['victim'], calls: 3 })),
    );
    expect(after.reduce((a, b) => a + b, 0)).toBe(0);
    expect(limiter.consume('fresh-key').allowed).toBe(true);
  });

  it('of two limits on its key: the key is taken over with every limit spent, not only the tightest', async () => {
    const limiter = await abandoned([
      { limit: 5, windowMs: 60_000 },
      { limit: 10, windowMs: 3_600_000 },
    ]);
    // Spending only the per-minute limit would let the hour admit 5 more a minute later,
    // though its dead holder may have used it up.
    const decision = limiter.consume('victim');
    expect(decision.allowed).toBe(false);
    expect(decision.limits?.map((l) => l.remaining)).toEqual([0, 0]);
  });

  it('a worker terminated mid-stream (wherever it stopped) leaves every key decidable', async () => {
    const limiter = createSharedLimiter(
      'sliding-log',
      { limit: 50, windowMs: 60_000 },
      { maxKeys: 64, lockLeaseMs: 50 },
    );
    const keys = Array.from({ length: 8 }, (_, i) => `k${i}`);
    for (let round = 0; round < 3; round++) {
      const doomed = await TestThread.start();
      await doomed.ask({ type: 'attach', handle: limiter.handle });
      void doomed.ask({ type: 'count', keys, calls: 50_000_000 }).catch(() => undefined);
      await new Promise((wait) => setTimeout(wait, 30));
      await doomed.stop();
      // Every key answers (a key whose lock died with the worker after the lease).
      for (const key of keys) expect(typeof limiter.consume(key, 0).allowed).toBe('boolean');
    }
    // Each key's state is whole: it admits exactly what it says remains, then denies.
    for (const key of keys) {
      const remaining = limiter.consume(key, 0).remaining;
      const admitted = Array.from({ length: remaining + 1 }, () => limiter.allow(key)).filter(Boolean).length;
      expect(admitted).toBe(remaining);
    }
  });
});
