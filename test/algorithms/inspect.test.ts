// limiter.inspect(key): what each algorithm holds for a key, read without changing it (the
// playground draws its state views from it). Step tables on a ManualClock, policy 4 per
// 1000 ms (burst 4): after each step, the state inspect reads, and why.
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import type { Algorithm } from '../../src/core/policy.js';
import { createLimiter } from '../../src/memory/limiter.js';

type Step = { at: number; send: number; state: unknown; why: string };

const POLICY = { limit: 4, windowMs: 1000 };

const TABLES: Record<Algorithm, Step[]> = {
  'token-bucket': [
    { at: 0, send: 3, state: { tokens: 1, capacity: 4, ratePerMs: 0.004 }, why: 'starts full at 4, 3 taken' },
    {
      at: 250,
      send: 0,
      state: { tokens: 2, capacity: 4, ratePerMs: 0.004 },
      why: '250 ms refill 1 token (4 per 1000 ms)',
    },
    {
      at: 375,
      send: 0,
      state: { tokens: 2.5, capacity: 4, ratePerMs: 0.004 },
      why: 'between refills: the fraction shows',
    },
    { at: 5000, send: 0, state: { tokens: 4, capacity: 4, ratePerMs: 0.004 }, why: 'never above its capacity' },
  ],
  gcra: [
    {
      at: 0,
      send: 3,
      state: { now: 0, tat: 750, intervalMs: 250, toleranceMs: 750 },
      why: 'TAT moves T = 250 ms per unit',
    },
    {
      at: 500,
      send: 0,
      state: { now: 500, tat: 750, intervalMs: 250, toleranceMs: 750 },
      why: 'the TAT stays; now catches up',
    },
    { at: 2000, send: 0, state: { now: 2000, tat: 2000, intervalMs: 250, toleranceMs: 750 }, why: 'never before now' },
  ],
  'sliding-log': [
    { at: 0, send: 2, state: { now: 0, windowMs: 1000, timestamps: [0, 0] }, why: 'one timestamp per unit' },
    { at: 600, send: 1, state: { now: 600, windowMs: 1000, timestamps: [0, 0, 600] }, why: 'oldest first' },
    { at: 1000, send: 0, state: { now: 1000, windowMs: 1000, timestamps: [600] }, why: '0 is out of (0, 1000]' },
  ],
  'sliding-counter': [
    {
      at: 100,
      send: 3,
      state: { previous: 0, current: 3, windowStart: 0, weight: 0.9, estimate: 3 },
      why: 'counts the current window',
    },
    {
      at: 1250,
      send: 0,
      state: { previous: 3, current: 0, windowStart: 1000, weight: 0.75, estimate: 2.25 },
      why: 'rolled: 3 x 0.75',
    },
    {
      at: 3000,
      send: 0,
      state: { previous: 0, current: 0, windowStart: 3000, weight: 1, estimate: 0 },
      why: 'two windows on: both empty',
    },
  ],
  'fixed-window': [
    {
      at: 100,
      send: 5,
      state: { count: 4, windowStart: 0, windowEnd: 1000 },
      why: 'the fifth denied, changing nothing',
    },
    { at: 999, send: 0, state: { count: 4, windowStart: 0, windowEnd: 1000 }, why: 'same window' },
    { at: 1000, send: 0, state: { count: 0, windowStart: 1000, windowEnd: 2000 }, why: 'the boundary resets it' },
  ],
};

describe('limiter.inspect(key)', () => {
  for (const [algorithm, steps] of Object.entries(TABLES) as [Algorithm, Step[]][]) {
    it(`${algorithm}: reads the state as of now`, () => {
      const clock = new ManualClock(0);
      const limiter = createLimiter(algorithm, POLICY, { clock });
      expect(limiter.inspect?.('k')).toBeUndefined();
      for (const step of steps) {
        clock.set(step.at);
        for (let i = 0; i < step.send; i++) limiter.consume('k');
        expect(limiter.inspect?.('k'), step.why).toEqual({ algorithm, ...(step.state as object) });
      }
    });
  }

  it('changes nothing: decisions after any number of reads are those without them', () => {
    const run = (read: boolean) => {
      const clock = new ManualClock(0);
      const limiter = createLimiter('sliding-log', POLICY, { clock });
      const out: boolean[] = [];
      for (let t = 0; t < 3000; t += 90) {
        clock.set(t);
        if (read) limiter.inspect?.('k');
        out.push(limiter.allow('k'));
      }
      return out;
    };
    expect(run(true)).toEqual(run(false));
  });

  it('has no one state to show for several limits', () => {
    const limiter = createLimiter('token-bucket', [POLICY, { limit: 10, windowMs: 60_000 }], { clock: () => 0 });
    limiter.consume('k');
    expect(limiter.inspect?.('k')).toBeUndefined();
  });
});
