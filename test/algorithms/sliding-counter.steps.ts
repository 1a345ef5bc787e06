import { step, type StepTable } from '../support/steps.js';

/**
 * Sliding counter (Cloudflare): estimate `prev * (W - elapsed) / W + cur`, prev and cur the
 * counts of the previous and current aligned windows; a cost is admitted when the estimate
 * including it is at most `limit`. remaining = floor(limit - estimate).
 */
export const SLIDING_COUNTER_TABLES: StepTable[] = [
  {
    name: "Cloudflare's example: 50 per minute, prev 42, 15 s in, cur 18 -> 49.5",
    policy: { limit: 50, windowMs: 60_000 },
    capacity: 50,
    steps: [
      step(30_000, 42, true, 8, 0, 90_000, 'window [0, 60 s): cur 42, counted until 120 s'),
      step(75_000, 0, true, 18, 0, 45_000, '15 s in: 42 * 45/60 = 31.5, remaining floor(18.5)'),
      step(75_000, 18, true, 0, 0, 105_000, '31.5 + 18 = 49.5 <= 50'),
      step(75_000, 1, false, 0, 715, 105_000, '50.5 > 50; 42 * (60 - e)/60 + 19 <= 50 from e = 15.715 s'),
      step(75_714, 1, false, 0, 1, 104_286, '42 * 44286/60000 + 19 = 50.0002'),
      step(75_715, 1, true, 0, 0, 104_285, '42 * 44285/60000 + 19 = 49.9995'),
      step(120_000, 0, true, 31, 0, 60_000, 'the next window: prev 19 at full weight'),
      step(240_000, 0, true, 50, 0, 0, 'two windows later both counts are gone'),
      step(240_000, 51, false, 50, Infinity, 0, 'cost 51 > limit 50'),
    ],
  },
  {
    name: 'only the next window can admit: 3 per second',
    policy: { limit: 3, windowMs: 1000 },
    capacity: 3,
    steps: [
      step(500, 3, true, 0, 0, 1500, 'cur 3, counted until 2000'),
      step(500, 1, false, 0, 834, 1500, 'next window: 3 * (1000 - e)/1000 + 1 <= 3 from e = 334'),
      step(1333, 1, false, 0, 1, 667, '3 * 667/1000 + 1 = 3.001'),
      step(1334, 1, true, 0, 0, 1666, '3 * 666/1000 + 1 = 2.998'),
    ],
  },
  {
    name: 'an estimate exactly at the limit is admitted: 4 per second',
    policy: { limit: 4, windowMs: 1000 },
    capacity: 4,
    steps: [
      step(0, 4, true, 0, 0, 2000, 'cur 4'),
      step(1500, 2, true, 0, 0, 1500, '4 * 500/1000 + 2 = 4'),
      step(1500, 1, false, 0, 250, 1500, '4 * (1000 - e)/1000 + 3 <= 4 from e = 750'),
      step(1750, 1, true, 0, 0, 1250, '4 * 250/1000 + 3 = 4'),
    ],
  },
];
