import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter } from '../../src/index.js';
import { itFollowsTables } from '../support/memory-steps.js';
import { SLIDING_COUNTER_TABLES } from './sliding-counter.steps.js';

describe('sliding counter', () => {
  itFollowsTables('sliding-counter', SLIDING_COUNTER_TABLES);

  it("follows Cloudflare's estimate prev * (W - elapsed) / W + cur through a whole window", () => {
    const clock = new ManualClock(30_000);
    const limiter = createLimiter('sliding-counter', { limit: 50, windowMs: 60_000 }, { clock });
    limiter.consume('k', 42);
    for (let second = 0; second < 60; second++) {
      clock.set(60_000 + second * 1000);
      // remaining = floor(50 - 42 * (60 - s) / 60), in whole numbers: floor((3000 - 42 * (60 - s)) / 60).
      expect(limiter.consume('k', 0).remaining, `${second} s into the window`).toBe(
        Math.floor((3000 - 42 * (60 - second)) / 60),
      );
    }
  });

  it('admits 1.9x its limit inside one sliding window after a full quota at the end of a window', () => {
    // 10 per 1000 ms. 10 at 999 fill window 0. In window 1 a request at elapsed e is
    // admitted while 10 * (1000 - e) / 1000 + cur + 1 <= 10, i.e. cur <= e / 100 - 1: by
    // e = 998, 9 more. So (998, 1998] holds 19 admissions.
    const clock = new ManualClock(999);
    const limiter = createLimiter('sliding-counter', { limit: 10, windowMs: 1000 }, { clock });
    let admitted = 0;
    for (let i = 0; i < 10; i++) admitted += limiter.allow('k') ? 1 : 0;
    for (let t = 1000; t <= 1998; t++) {
      clock.set(t);
      admitted += limiter.allow('k') ? 1 : 0;
    }
    expect(admitted).toBe(19);
  });

  it('keeps two counters per key: 16 bytes with the last-use time', () => {
    expect(createLimiter('sliding-counter', { limit: 3, windowMs: 1000 }).stateBytesPerKey).toBe(16);
  });
});
