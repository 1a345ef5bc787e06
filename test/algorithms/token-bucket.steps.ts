import { step, type StepTable } from '../support/steps.js';

/**
 * Token bucket: capacity `burst ?? limit`, refilled at `limit / windowMs` per ms, starting
 * full. Rows: step(at ms, cost, allowed, remaining, retryAfterMs, resetMs, why).
 */
export const TOKEN_BUCKET_TABLES: StepTable[] = [
  {
    name: '4 per second: one token every 250 ms',
    policy: { limit: 4, windowMs: 1000 },
    capacity: 4,
    steps: [
      step(0, 1, true, 3, 0, 250, 'starts full; the one token taken is back in 250 ms'),
      step(0, 3, true, 0, 0, 1000, 'cost 3 empties it; 4 tokens take 1000 ms'),
      step(0, 1, false, 0, 250, 1000, 'empty: the next token is 250 ms away'),
      step(100, 1, false, 0, 150, 900, '0.4 tokens: 0.6 more take 150 ms'),
      step(250, 1, true, 0, 0, 1000, 'exactly 1 token at 250 ms is enough'),
      step(250, 0, true, 0, 0, 1000, 'cost 0 only asks'),
      step(600, 2, false, 1, 150, 650, '1.4 tokens: 2 need 150 ms more; full needs 2.6 tokens'),
      step(750, 2, true, 0, 0, 1000, 'the denied request took nothing: 2 tokens at 750 ms'),
      step(750, 5, false, 0, Infinity, 1000, 'cost 5 > capacity 4 can never pass'),
      step(5000, 0, true, 4, 0, 0, 'refill stops at capacity'),
      step(5000, 4, true, 0, 0, 1000, 'a full burst of the capacity'),
    ],
  },
  {
    name: 'burst above the limit: 2 per second, burst 5',
    policy: { limit: 2, windowMs: 1000, burst: 5 },
    capacity: 5,
    steps: [
      step(0, 5, true, 0, 0, 2500, 'the whole burst at once; 5 tokens at 1 per 500 ms'),
      step(0, 1, false, 0, 500, 2500, 'then the steady rate'),
      step(499, 1, false, 0, 1, 2001, '0.998 tokens'),
      step(500, 1, true, 0, 0, 2500, 'one token per 500 ms'),
      step(1000, 6, false, 1, Infinity, 2000, 'cost 6 > burst 5'),
      step(1000, 2, false, 1, 500, 2000, 'one token short'),
      step(3000, 0, true, 5, 0, 0, 'full again after 2000 ms'),
    ],
  },
  {
    name: 'burst below the limit: 10 per second, burst 2',
    policy: { limit: 10, windowMs: 1000, burst: 2 },
    capacity: 2,
    steps: [
      step(0, 2, true, 0, 0, 200, 'capacity 2, one token per 100 ms'),
      step(0, 1, false, 0, 100, 200, 'empty'),
      step(50, 1, false, 0, 50, 150, 'half a token'),
      step(100, 1, true, 0, 0, 200, 'one token at 100 ms'),
      step(100, 3, false, 0, Infinity, 200, 'cost 3 > burst 2, though the limit is 10'),
      step(10_000, 10, false, 2, Infinity, 0, 'the capacity, not the limit, bounds one request'),
    ],
  },
  {
    name: 'a rate that is not a whole number per ms: 3 per second',
    policy: { limit: 3, windowMs: 1000 },
    capacity: 3,
    steps: [
      step(0, 3, true, 0, 0, 1000, 'empties it'),
      step(0, 1, false, 0, 334, 1000, 'one token takes 333.3 ms, rounded up'),
      step(333, 1, false, 0, 1, 667, '0.999 tokens: not yet'),
      step(334, 1, true, 0, 0, 1000, '1.002 tokens; 0.002 left, 999.3 ms to full'),
      step(667, 1, true, 0, 0, 1000, '0.002 + 0.999 = 1.001 tokens'),
    ],
  },
];
