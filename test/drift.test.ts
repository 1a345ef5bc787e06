import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter, type Algorithm, type Policy, type RateLimiter } from '../src/index.js';

/**
 * No drift: a rate must stay exact however long the limiter runs (x/time/rate lost a
 * token to float error at 10 per 13 ms, golang/go #46579). Token bucket and GCRA keep
 * fixed-point integers, so these counts are exact, not approximately right.
 */
const MILLION_SECONDS = 1e9;

/** Offers a request every ms over `windows` windows from `start`; returns the admissions per window. */
function admittedPerWindow(
  limiter: RateLimiter,
  clock: ManualClock,
  start: number,
  policy: Policy,
  windows: number,
): number[] {
  const counts: number[] = [];
  for (let w = 0; w < windows; w++) {
    let admitted = 0;
    for (let ms = 0; ms < policy.windowMs; ms++) {
      clock.set(start + w * policy.windowMs + ms);
      while (limiter.allow('k')) admitted += 1;
    }
    counts.push(admitted);
  }
  return counts;
}

describe.each([['token-bucket'], ['gcra']] as [Algorithm][])('%s', (algorithm) => {
  it('10 per second: paced at exactly the rate from empty, every request for 1e6 s is admitted, and no more', () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(algorithm, { limit: 10, windowMs: 1000 }, { clock });
    for (let i = 0; i < 10; i++) limiter.allow('k');
    let missed = 0;
    let extra = 0;
    for (let tick = 1; tick <= MILLION_SECONDS / 100; tick++) {
      clock.set(tick * 100);
      if (!limiter.allow('k')) missed += 1;
      // Now and then, check that no fraction of a token has crept in either.
      if (tick % 10_000 === 0 && limiter.allow('k')) extra += 1;
    }
    expect({ missed, extra }).toEqual({ missed: 0, extra: 0 });
  });

  it.each([
    ['10 per second', { limit: 10, windowMs: 1000 }],
    ['10 per 13 ms', { limit: 10, windowMs: 13 }],
    ['1 per 3 ms', { limit: 1, windowMs: 3 }],
  ] as [string, Policy][])('%s: exactly limit per window, early and after 1e6 s', (_name, policy) => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(algorithm, policy, { clock });
    const windows = Math.ceil(100_000 / policy.windowMs);
    const early = admittedPerWindow(limiter, clock, 0, policy, windows);
    // The bucket is drained every 1000 windows through the million seconds, then left to
    // fill, and the last stretch is sampled every ms again.
    const lateStart = MILLION_SECONDS - (MILLION_SECONDS % policy.windowMs);
    const stride = policy.windowMs * 1000;
    for (let t = windows * policy.windowMs; t <= lateStart - stride; t += stride) {
      clock.set(t);
      while (limiter.allow('k'));
    }
    const late = admittedPerWindow(limiter, clock, lateStart, policy, windows);
    // The first window starts full and refills for windowMs - 1 more ms:
    // limit + floor(limit * (windowMs - 1) / windowMs). Every later one: exactly limit.
    const first = policy.limit + Math.floor((policy.limit * (policy.windowMs - 1)) / policy.windowMs);
    const expected = [first, ...Array.from({ length: windows - 1 }, () => policy.limit)];
    expect(early).toEqual(expected);
    expect(late).toEqual(expected);
  });
});
