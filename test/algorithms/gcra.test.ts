import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter } from '../../src/index.js';
import { itFollowsTables } from '../support/memory-steps.js';
import { GCRA_TABLES } from './gcra.steps.js';

describe('GCRA', () => {
  itFollowsTables('gcra', GCRA_TABLES);

  it('after its burst, admits once per emission interval T = windowMs / limit, at the first whole ms', () => {
    // 10 per 13 ms: T = 1.3 ms, burst 3. Offered a request every ms from 0, the k-th
    // admission after the burst comes at ceil(k * 1.3) ms.
    const clock = new ManualClock(0);
    const limiter = createLimiter('gcra', { limit: 10, windowMs: 13, burst: 3 }, { clock });
    const admitted: number[] = [];
    for (let t = 0; t <= 40; t++) {
      clock.set(t);
      while (limiter.allow('k')) admitted.push(t);
    }
    const expected = [0, 0, 0, ...Array.from({ length: 30 }, (_, i) => Math.ceil(((i + 1) * 13) / 10))];
    expect(admitted).toEqual(expected.filter((t) => t <= 40));
  });

  it('keeps one number per key: 16 bytes with the last-use time', () => {
    expect(createLimiter('gcra', { limit: 3, windowMs: 1000 }).stateBytesPerKey).toBe(16);
  });
});
