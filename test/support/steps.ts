import { expect } from 'vitest';
import type { Consumer } from '../../src/core/limiter.js';
import type { Decision, ManualClock } from '../../src/index.js';

/**
 * One row of a step table: at time `at` (ms on the ManualClock), `cost` units are asked
 * for, and the limiter must answer exactly `expect` (the `limit` field is the table's).
 */
export interface Step {
  at: number;
  cost: number;
  expect: Omit<Decision, 'limit'>;
  /** Why the row's numbers are what they are, shown in the test name. */
  why: string;
}

/** A named sequence of steps on one key of a fresh limiter. */
export interface StepTable {
  name: string;
  policy: { limit: number; windowMs: number; burst?: number };
  /** The Decision's `limit` field: `burst ?? limit` for the buckets, `limit` for windows. */
  capacity: number;
  steps: Step[];
}

/** Shorthand for a row: `step(at, cost, allowed, remaining, retryAfterMs, resetMs, why)`. */
export function step(
  at: number,
  cost: number,
  allowed: boolean,
  remaining: number,
  retryAfterMs: number,
  resetMs: number,
  why: string,
): Step {
  return { at, cost, expect: { allowed, remaining, retryAfterMs, resetMs }, why };
}

/** The full Decision a row expects. */
export function expected(table: StepTable, row: Step): Decision {
  return { ...row.expect, limit: table.capacity };
}

/**
 * Plays `table` on key `${prefix}k` of `subject`, whose time is `clock`, shifted by `base` ms,
 * and checks every decision in full.
 */
export async function runTable(
  subject: Consumer,
  clock: ManualClock,
  table: StepTable,
  base = 0,
  prefix = '',
): Promise<void> {
  for (const [i, row] of table.steps.entries()) {
    clock.set(base + row.at);
    const decision = await subject.consume(`${prefix}k`, row.cost);
    expect(decision, `row ${i + 1}: at ${row.at} ms, cost ${row.cost}: ${row.why}`).toEqual(expected(table, row));
  }
}
