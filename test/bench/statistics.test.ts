import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { centre, mannWhitneyLess } from '../../src/bench/statistics.js';

/** Exact oracle: the share of all ways to split the pooled values whose U is <= the observed U. */
function bruteForceLowerTail(after: number[], before: number[]): number {
  const pooled = [...after, ...before];
  const u = (xs: number[], ys: number[]) =>
    xs.reduce((sum, x) => sum + ys.filter((y) => x > y).length + ys.filter((y) => x === y).length / 2, 0);
  const observed = u(after, before);
  let total = 0;
  let atMost = 0;
  const pick = (start: number, chosen: number[]) => {
    if (chosen.length === after.length) {
      const rest = pooled.filter((_, i) => !chosen.includes(i));
      total += 1;
      if (
        u(
          chosen.map((i) => pooled[i] as number),
          rest,
        ) <=
        observed + 1e-9
      )
        atMost += 1;
      return;
    }
    for (let i = start; i < pooled.length; i++) pick(i + 1, [...chosen, i]);
  };
  pick(0, []);
  return atMost / total;
}

describe('mannWhitneyLess (one-sided: is `after` lower than `before`?)', () => {
  it.each([
    { after: [1, 2, 3], before: [4, 5, 6], p: 1 / 20, why: 'completely below: the one most extreme split of C(6,3)' },
    { after: [4, 5, 6], before: [1, 2, 3], p: 1, why: 'completely above' },
    {
      after: [1, 2, 3, 4, 5, 6, 7, 8, 9],
      before: [10, 11, 12, 13, 14, 15, 16, 17, 18],
      p: 1 / 48620,
      why: '9 rounds each, all below',
    },
    {
      after: [1, 3, 5],
      before: [2, 4, 6],
      p: 7 / 20,
      why: 'interleaved: U = 3; U counts 1,1,2,3 for 0..3 of 20 splits',
    },
  ])('$why', ({ after, before, p }) => {
    expect(mannWhitneyLess(after, before)).toBeCloseTo(p, 10);
  });

  it('matches the exact oracle on small samples of distinct values', () => {
    const sample = fc.uniqueArray(fc.integer({ min: 0, max: 1000 }), { minLength: 2, maxLength: 9 });
    fc.assert(
      fc.property(sample, fc.integer({ min: 1, max: 5 }), (values, split) => {
        const cut = Math.min(split, values.length - 1);
        const after = values.slice(0, cut);
        const before = values.slice(cut);
        expect(mannWhitneyLess(after, before)).toBeCloseTo(bruteForceLowerTail(after, before), 10);
      }),
      { numRuns: 200 },
    );
  });

  it('with ties uses the normal approximation, close to the exact tail', () => {
    const after = [1, 1, 2, 2, 3, 3, 4, 4];
    const before = [3, 3, 4, 4, 5, 5, 6, 6];
    const p = mannWhitneyLess(after, before);
    expect(p).toBeLessThan(0.05);
    expect(Math.abs(p - bruteForceLowerTail(after, before))).toBeLessThan(0.01);
  });

  it('says nothing (p = 1) about an empty sample, and finds no difference between equal ones', () => {
    expect(mannWhitneyLess([], [1, 2])).toBe(1);
    expect(mannWhitneyLess([1, 1, 1], [1, 1, 1])).toBe(1);
    expect(mannWhitneyLess([2, 2, 2, 2], [2, 2, 2, 2])).toBeGreaterThan(0.5);
  });
});

describe('centre', () => {
  it('is the median and the median absolute deviation relative to it', () => {
    expect(centre([1, 2, 3, 4, 100])).toEqual({ median: 3, spread: 1 / 3 });
    expect(centre([5])).toEqual({ median: 5, spread: 0 });
  });
});
