import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SyncedWindow } from '../../src/sim/distributed/synced-window.js';

/** The definition: node i sees its own units in (t - W, t] and everyone else's in (t - W, s]. */
function bruteEstimate(
  log: { t: number; node: number; units: number }[],
  node: number,
  t: number,
  s: number,
  windowMs: number,
): number {
  let sum = 0;
  for (const entry of log) {
    if (entry.t <= t - windowMs || entry.t > t) continue;
    if (entry.node === node || entry.t <= s) sum += entry.units;
  }
  return sum;
}

describe('SyncedWindow', () => {
  it('estimates exactly what each node has seen: its own admissions, and the others up to the last sync', () => {
    const step = fc.record({
      gap: fc.integer({ min: 0, max: 40 }),
      node: fc.integer({ min: 0, max: 3 }),
      units: fc.integer({ min: 1, max: 5 }),
      lag: fc.integer({ min: 0, max: 120 }),
    });
    fc.assert(
      fc.property(fc.array(step, { maxLength: 200 }), fc.integer({ min: 1, max: 150 }), (steps, windowMs) => {
        const window = new SyncedWindow(4);
        const log: { t: number; node: number; units: number }[] = [];
        let t = 0;
        let s = -Infinity;
        for (const { gap, node, units, lag } of steps) {
          t += gap;
          s = Math.max(s, t - lag);
          window.expire(t - windowMs);
          window.syncUpTo(s);
          for (let i = 0; i < 4; i++) expect(window.estimate(i)).toBe(bruteEstimate(log, i, t, s, windowMs));
          window.add(t, node, units);
          log.push({ t, node, units });
        }
      }),
    );
  });
});
