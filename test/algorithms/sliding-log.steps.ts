import { step, type StepTable } from '../support/steps.js';
import { FIGMA_1100_59, FIGMA_1101_00 } from './fixed-window.steps.js';

/**
 * Sliding log: admits while the units admitted in `(now - windowMs, now]` plus the cost
 * stay within `limit`. An entry admitted at `x` leaves the window at `x + windowMs`.
 */
export const SLIDING_LOG_TABLES: StepTable[] = [
  {
    name: '3 per second',
    policy: { limit: 3, windowMs: 1000 },
    capacity: 3,
    steps: [
      step(0, 1, true, 2, 0, 1000, 'log [0]'),
      step(300, 1, true, 1, 0, 1000, 'log [0, 300]: full when 300 leaves, at 1300'),
      step(600, 1, true, 0, 0, 1000, 'log [0, 300, 600]: full at 1600'),
      step(600, 1, false, 0, 400, 1000, 'the entry at 0 leaves at 1000'),
      step(999, 1, false, 0, 1, 601, '0 is still inside (-1, 999]'),
      step(1000, 1, true, 0, 0, 1000, '0 left (0, 1000]; log [300, 600, 1000]'),
      step(1000, 2, false, 0, 600, 1000, 'two must leave: the second oldest, 600, leaves at 1600'),
      step(1300, 2, false, 1, 300, 700, 'log [600, 1000]: 600 must leave'),
      step(1600, 2, true, 0, 0, 1000, 'log [1000, 1600, 1600]'),
      step(1600, 4, false, 0, Infinity, 1000, 'cost 4 > limit 3'),
      step(2600, 0, true, 3, 0, 0, 'everything left (1600, 2600]'),
    ],
  },
  {
    name: "Figma's edge does not pass a sliding log: 5 per minute",
    policy: { limit: 5, windowMs: 60_000 },
    capacity: 5,
    steps: [
      ...[4, 3, 2, 1, 0].map((remaining) =>
        step(FIGMA_1100_59, 1, true, remaining, 0, 60_000, `${5 - remaining} of 5 at 11:00:59`),
      ),
      step(FIGMA_1101_00, 1, false, 0, 59_000, 59_000, 'at 11:01:00 the five are 1 s old: wait for 11:01:59'),
      step(FIGMA_1100_59 + 60_000, 5, true, 0, 0, 60_000, 'a minute later all five left'),
    ],
  },
];
