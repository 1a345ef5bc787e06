import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter } from '../../src/index.js';
import { itFollowsTables } from '../support/memory-steps.js';
import { TOKEN_BUCKET_TABLES } from './token-bucket.steps.js';

describe('token bucket', () => {
  itFollowsTables('token-bucket', TOKEN_BUCKET_TABLES);

  it('resolves its limits: capacity is burst ?? limit', () => {
    expect(createLimiter('token-bucket', { limit: 10, windowMs: 1000 }).limits).toEqual({
      limit: 10,
      windowMs: 1000,
      capacity: 10,
    });
    expect(createLimiter('token-bucket', { limit: 10, windowMs: 1000, burst: 25 }).limits).toEqual({
      limit: 10,
      windowMs: 1000,
      capacity: 25,
    });
  });

  it('allow(key) answers as consume(key, 1).allowed does', () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('token-bucket', { limit: 3, windowMs: 1000 }, { clock });
    const answers: [boolean, boolean][] = [];
    for (const gap of [0, 0, 0, 0, 100, 233, 334, 1, 0, 1000, 0, 0, 0, 0]) {
      clock.advance(gap);
      answers.push([limiter.allow('a'), limiter.consume('b').allowed]);
    }
    // One token per 333.3 ms: 2.001 tokens at 667, 1.004 at 668, full again by 1668.
    expect(answers.map(([a]) => a)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      true,
      true,
      false,
      true,
      true,
      true,
      false,
      false,
    ]);
    expect(answers.map(([, b]) => b)).toEqual(answers.map(([a]) => a));
  });

  it('keeps 16 bytes of state per key, 24 with an LRU cap', () => {
    expect(createLimiter('token-bucket', { limit: 3, windowMs: 1000 }).stateBytesPerKey).toBe(16);
    expect(createLimiter('token-bucket', { limit: 3, windowMs: 1000 }, { maxKeys: 10 }).stateBytesPerKey).toBe(24);
  });
});
