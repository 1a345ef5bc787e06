import type { Algorithm, PolicyInput } from '../../src/index.js';

/**
 * One call of a wait table: at `at` ms, `consume` (taken at once, not tracked) or `wait`
 * for `cost` units under `name`, which must resolve at `resolvesAt` ms on the clock.
 */
export type WaitCall =
  | { at: number; kind: 'consume'; cost: number; why: string }
  | { at: number; kind: 'wait'; name: string; cost: number; resolvesAt: number; why: string };

/**
 * `limiter.wait` on a ManualClock from 0, advanced 1 ms at a time to `until`: the waits
 * settle in the order listed, each at its `resolvesAt`. Runtime-neutral data: the suite
 * (test/wait/wait.test.ts) and the runtime matrix (test/runtimes/) both play it.
 */
export interface WaitTable {
  name: string;
  algorithm: Algorithm;
  policy: PolicyInput;
  until: number;
  calls: WaitCall[];
}

/** Token bucket, 10 per second, burst 1: one unit every 100 ms. */
const TEN_PER_SECOND = { limit: 10, windowMs: 1000, burst: 1 };

export const WAIT_TABLES: WaitTable[] = [
  {
    name: 'several limits: the longest of the limits’ waits, each wait taking from every limit once',
    algorithm: 'sliding-log',
    // 2 per second and 3 per 10 seconds: the short limit binds first, then the long one.
    policy: [
      { limit: 2, windowMs: 1000, name: 'burst' },
      { limit: 3, windowMs: 10_000, name: 'slow' },
    ],
    until: 10_000,
    calls: [
      { at: 0, kind: 'wait', name: 'first', cost: 1, resolvesAt: 0, why: 'both limits are full' },
      { at: 0, kind: 'wait', name: 'second', cost: 1, resolvesAt: 0, why: 'burst holds 2' },
      {
        at: 0,
        kind: 'wait',
        name: 'third',
        cost: 1,
        resolvesAt: 1000,
        why: 'burst admits once the first two leave its 1 s window; slow has room',
      },
      {
        at: 0,
        kind: 'wait',
        name: 'fourth',
        cost: 1,
        resolvesAt: 10_000,
        why: 'burst has room at 1000, but slow holds 3 until the first leaves its 10 s',
      },
    ],
  },
  {
    name: 'first come first served: a later small request never overtakes an earlier large one',
    algorithm: 'token-bucket',
    policy: { limit: 10, windowMs: 1000, burst: 5 },
    until: 700,
    calls: [
      { at: 0, kind: 'consume', cost: 5, why: 'empties the bucket' },
      { at: 0, kind: 'wait', name: 'large', cost: 5, resolvesAt: 500, why: 'five units back take 500 ms' },
      {
        at: 0,
        kind: 'wait',
        name: 'small',
        cost: 1,
        resolvesAt: 600,
        why: 'behind large, though 1 unit is back at 100',
      },
      { at: 100, kind: 'wait', name: 'late', cost: 1, resolvesAt: 700, why: 'asks when a unit is free, yet queues' },
    ],
  },
  {
    name: 'ten concurrent waits resolve in call order, 100 ms apart',
    algorithm: 'token-bucket',
    policy: TEN_PER_SECOND,
    until: 1000,
    calls: Array.from({ length: 10 }, (_, i) => ({
      at: 0,
      kind: 'wait' as const,
      name: String(i),
      cost: 1,
      resolvesAt: i * 100,
      why: `the ${i + 1}th unit of a bucket of one, refilled every 100 ms`,
    })),
  },
];
