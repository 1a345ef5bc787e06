import { describe, expect, it } from 'vitest';
import { ManualClock, createLimiter } from '../../src/index.js';
import { itFollowsTables } from '../support/memory-steps.js';
import { SLIDING_LOG_TABLES } from './sliding-log.steps.js';

describe('sliding log', () => {
  itFollowsTables('sliding-log', SLIDING_LOG_TABLES);

  it('keeps its ring of timestamps right through many wrap-arounds', () => {
    // 3 per 1000 ms, a request every 250 ms: the log admits 3 of every 4, always the
    // three whose 1000 ms windows hold two earlier admissions at most.
    const clock = new ManualClock(0);
    const limiter = createLimiter('sliding-log', { limit: 3, windowMs: 1000 }, { clock });
    const pattern: boolean[] = [];
    for (let i = 0; i < 400; i++) {
      clock.set(i * 250);
      pattern.push(limiter.allow('k'));
    }
    expect(pattern).toEqual(Array.from({ length: 400 }, (_, i) => i % 4 !== 3));
  });

  it('keeps at most limit timestamps per key: 8 * limit + 13 + 8 bytes', () => {
    expect(createLimiter('sliding-log', { limit: 10, windowMs: 1000 }).stateBytesPerKey).toBe(101);
  });
});
