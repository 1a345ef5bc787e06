import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter } from '../../src/index.js';
import { itFollowsTables } from '../support/memory-steps.js';
import { FIGMA_1100_59, FIGMA_1101_00, FIXED_WINDOW_TABLES } from './fixed-window.steps.js';

describe('fixed window', () => {
  itFollowsTables('fixed-window', FIXED_WINDOW_TABLES);

  it("lets 2x the limit through across an edge (Figma's 5 + 5 within one second)", () => {
    const clock = new ManualClock(FIGMA_1100_59);
    const limiter = createLimiter('fixed-window', { limit: 5, windowMs: 60_000 }, { clock });
    let admitted = 0;
    for (const at of [FIGMA_1100_59, FIGMA_1101_00]) {
      clock.set(at);
      for (let i = 0; i < 8; i++) admitted += limiter.allow('k') ? 1 : 0;
    }
    expect(admitted).toBe(10);
  });

  it('aligns windows below zero too: [-1000, 0) ends at 0', () => {
    const clock = new ManualClock(-1);
    const limiter = createLimiter('fixed-window', { limit: 3, windowMs: 1000 }, { clock });
    expect(limiter.consume('k', 3)).toEqual({ allowed: true, limit: 3, remaining: 0, retryAfterMs: 0, resetMs: 1 });
    clock.set(0);
    expect(limiter.consume('k', 3)).toEqual({ allowed: true, limit: 3, remaining: 0, retryAfterMs: 0, resetMs: 1000 });
  });

  it('keeps one counter per key: 12 bytes with the last-use time', () => {
    expect(createLimiter('fixed-window', { limit: 3, windowMs: 1000 }).stateBytesPerKey).toBe(12);
  });
});
