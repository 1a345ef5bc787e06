import { describe, expect, it } from 'vitest';
import { ALGORITHMS, ManualClock, createLimiter } from '../src/index.js';

describe('every algorithm', () => {
  it.each(ALGORITHMS)('%s admits up to its limit on one instant, then denies', (algorithm) => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(algorithm, { limit: 3, windowMs: 1000 }, { clock });
    expect([1, 2, 3, 4].map(() => limiter.allow('k'))).toEqual([true, true, true, false]);
  });
});
