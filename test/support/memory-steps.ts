import { it } from 'vitest';
import { ManualClock, createLimiter, type Algorithm } from '../../src/index.js';
import { runTable, type StepTable } from './steps.js';

/** One test per step table, on a fresh in-memory limiter of `algorithm`. */
export function itFollowsTables(algorithm: Algorithm, tables: StepTable[]): void {
  it.each(tables.map((table) => [table.name, table] as const))('step table: %s', async (_name, table) => {
    const clock = new ManualClock(table.steps[0]?.at ?? 0);
    await runTable(createLimiter(algorithm, table.policy, { clock }), clock, table);
  });
}
