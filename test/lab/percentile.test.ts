import { describe, expect, it } from 'vitest';
import { percentiles, percentilesOfCounts } from '../../src/metrics/percentile.js';
import { LatencyTally } from '../../src/sim/distributed/latency-tally.js';

/** The definition, written out: the ceil(q * n)-th smallest value, the smallest for q = 0. */
function nearestRank(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] as number;
}

describe('percentiles: nearest rank, the lab’s one definition', () => {
  it.each([
    { values: [5], qs: [0, 0.5, 0.99, 1], expected: [5, 5, 5, 5] },
    { values: [1, 2, 3, 4], qs: [0.25, 0.5, 0.75, 1], expected: [1, 2, 3, 4] },
    { values: [4, 1, 3, 2], qs: [0.26, 0.51, 0.9], expected: [2, 3, 4] },
    { values: [10, 20, 30], qs: [0, 0.33, 0.34, 0.67, 0.99], expected: [10, 10, 20, 30, 30] },
    // 100 values 1..100: p99 is the 99th smallest (not 99.01, not the 100th).
    { values: Array.from({ length: 100 }, (_, i) => 100 - i), qs: [0.5, 0.9, 0.99, 1], expected: [50, 90, 99, 100] },
    // 1000 values 1..1000: p99 is the 990th.
    { values: Array.from({ length: 1000 }, (_, i) => i + 1), qs: [0.5, 0.99], expected: [500, 990] },
    { values: [0, 0, 0, 80, 80], qs: [0.6, 0.61, 0.99], expected: [0, 80, 80] },
  ])('$qs of $values.length values: $expected', ({ values, qs, expected }) => {
    expect(percentiles(values, qs)).toEqual(expected);
    expect(percentiles(Float64Array.from(values), qs)).toEqual(expected);
  });

  it.each([1, 2, 3, 7, 10, 99, 100, 101, 250])(
    'over %i values every q in steps of 0.01 is the ceil(q n)-th smallest',
    (n) => {
      const values = Array.from({ length: n }, (_, i) => (i * 37) % n);
      const qs = Array.from({ length: 101 }, (_, i) => i / 100);
      expect(percentiles(values, qs)).toEqual(qs.map((q) => nearestRank(values, q)));
    },
  );
});

describe('percentilesOfCounts: the same percentiles read from counts per value', () => {
  it.each([
    {
      counts: [
        [0, 990],
        [80, 10],
      ],
      qs: [0.99, 0.991, 1],
      expected: [0, 80, 80],
    },
    {
      counts: [
        [80, 10],
        [0, 990],
      ],
      qs: [0.5, 0.99],
      expected: [0, 0],
    },
    {
      counts: [
        [0, 989],
        [80, 10],
        [2000, 1],
      ],
      qs: [0.989, 0.99, 0.999, 1],
      expected: [0, 80, 80, 2000],
    },
    {
      counts: [
        [3, 1],
        [7, 0],
        [9, 2],
      ],
      qs: [0, 0.34, 1],
      expected: [3, 9, 9],
    },
  ])('$counts: $qs -> $expected, as the expanded values give', ({ counts, qs, expected }) => {
    const map = new Map(counts as Array<[number, number]>);
    const expanded = (counts as Array<[number, number]>).flatMap(([value, count]) => Array<number>(count).fill(value));
    expect(percentilesOfCounts(map, qs)).toEqual(expected);
    expect(percentiles(expanded, qs)).toEqual(expected);
  });

  it('the distributed simulator’s latency tally reports the p99 of this definition', () => {
    const tally = new LatencyTally();
    const waits = [...Array<number>(985).fill(0), ...Array<number>(10).fill(2), ...Array<number>(5).fill(50)];
    for (const ms of waits) tally.add(ms);
    expect(tally.summary()).toEqual({ meanMs: (10 * 2 + 5 * 50) / 1000, p99Ms: nearestRank(waits, 0.99) });
    expect(tally.summary().p99Ms).toBe(2);
  });
});
