import { step, type StepTable } from '../support/steps.js';

/** 11:00:59 and 11:01:00 as ms since midnight (Figma's example). */
export const FIGMA_1100_59 = (11 * 3600 + 59) * 1000;
export const FIGMA_1101_00 = (11 * 3600 + 60) * 1000;

const five = (at: number, resetMs: number) =>
  [4, 3, 2, 1, 0].map((remaining) => step(at, 1, true, remaining, 0, resetMs, `${5 - remaining} of 5`));

/**
 * Fixed window: at most `limit` per window `[k * windowMs, (k + 1) * windowMs)`, windows
 * aligned to multiples of windowMs on the clock whatever the first request's time.
 */
export const FIXED_WINDOW_TABLES: StepTable[] = [
  {
    name: '3 per second, windows [0, 1000), [1000, 2000), ...',
    policy: { limit: 3, windowMs: 1000 },
    capacity: 3,
    steps: [
      step(0, 1, true, 2, 0, 1000, 'the window ends at 1000'),
      step(500, 2, true, 0, 0, 500, 'the window is full'),
      step(999, 1, false, 0, 1, 1, 'the next window starts in 1 ms'),
      step(999, 0, true, 0, 0, 1, 'cost 0 only asks'),
      step(1000, 3, true, 0, 0, 1000, 'a new window: a full quota at once'),
      step(1000, 4, false, 0, Infinity, 1000, 'cost 4 > limit 3'),
      step(1400, 1, false, 0, 600, 600, 'until the window ends'),
      step(2500, 0, true, 3, 0, 0, 'an untouched window is full'),
      step(2500, 1, true, 2, 0, 500, 'back at 3000'),
    ],
  },
  {
    name: 'windows are aligned to the clock, not to the first request',
    policy: { limit: 3, windowMs: 1000 },
    capacity: 3,
    steps: [
      step(700, 3, true, 0, 0, 300, 'the first request at 700 is in [0, 1000)'),
      step(999, 1, false, 0, 1, 1, 'full until 1000'),
      step(1000, 1, true, 2, 0, 1000, 'a fresh window 300 ms after a full quota'),
    ],
  },
  {
    name: "Figma's edge: 5 per minute, 5 at 11:00:59 and 5 at 11:01:00 all pass",
    policy: { limit: 5, windowMs: 60_000 },
    capacity: 5,
    steps: [
      ...five(FIGMA_1100_59, 1000),
      step(FIGMA_1100_59, 1, false, 0, 1000, 1000, 'the 6th waits 1 s for the next minute'),
      ...five(FIGMA_1101_00, 60_000),
      step(FIGMA_1101_00, 1, false, 0, 60_000, 60_000, '10 admitted within 1 s, then a full minute'),
    ],
  },
];
