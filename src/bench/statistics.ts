import { errorFunction, median, medianAbsoluteDeviation, wilcoxonRankSum } from 'simple-statistics';

/**
 * One-sided Mann-Whitney U test (Wilcoxon rank-sum): the probability, if `after` and
 * `before` came from the same distribution, of `after` ranking as low as it does or lower.
 * A small value says `after` is really lower (e.g. a ratio dropped), not just noisy.
 * This is the test Google Benchmark's compare.py applies to repeated runs.
 *
 * Exact (from the distribution of U over all rank splits) when there are no ties and
 * `n1 * n2 <= 400`; otherwise the normal approximation with tie and continuity corrections.
 * Returns 1 when either sample is empty.
 */
export function mannWhitneyLess(after: readonly number[], before: readonly number[]): number {
  const n1 = after.length;
  const n2 = before.length;
  if (n1 === 0 || n2 === 0) return 1;
  // U counts the pairs (a, b) with a > b (ties count half): small U means `after` is lower.
  const u = wilcoxonRankSum([...after], [...before]) - (n1 * (n1 + 1)) / 2;
  const ties = tieGroups([...after, ...before]);
  if (ties.length === 0 && n1 * n2 <= 400) return exactLowerTail(n1, n2, u);
  return normalLowerTail(n1, n2, u, ties);
}

/** P(U <= u) under the null hypothesis, counting rank splits (no ties). */
function exactLowerTail(n1: number, n2: number, u: number): number {
  const counts = uCounts(n1, n2);
  let total = 0;
  let below = 0;
  counts.forEach((count, value) => {
    total += count;
    if (value <= u) below += count;
  });
  return below / total;
}

/**
 * How many of the C(n1+n2, n1) orderings give each value of U, by the recurrence
 * N(n1, n2, u) = N(n1-1, n2, u-n2) + N(n1, n2-1, u) (the largest value is from one sample or
 * the other). Table over n2 for the current n1, rows of counts by u.
 */
function uCounts(n1: number, n2: number): number[] {
  // rows[j] = counts for (i, j) as i grows from 0; for i = 0 only U = 0 is possible.
  let rows: number[][] = Array.from({ length: n2 + 1 }, () => [1]);
  for (let i = 1; i <= n1; i++) {
    const next: number[][] = [[1]];
    for (let j = 1; j <= n2; j++) {
      const size = i * j + 1;
      const row = new Array<number>(size).fill(0);
      const fromFirst = rows[j] as number[]; // (i-1, j): the largest is in sample 1, U += j
      const fromSecond = next[j - 1] as number[]; // (i, j-1): the largest is in sample 2
      fromFirst.forEach((count, u) => (row[u + j] = (row[u + j] as number) + count));
      fromSecond.forEach((count, u) => (row[u] = (row[u] as number) + count));
      next.push(row);
    }
    rows = next;
  }
  return rows[n2] as number[];
}

function normalLowerTail(n1: number, n2: number, u: number, ties: readonly number[]): number {
  const n = n1 + n2;
  const tieTerm = ties.reduce((sum, t) => sum + (t ** 3 - t), 0);
  const variance = ((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1)));
  if (variance <= 0) return 1;
  const z = (u + 0.5 - (n1 * n2) / 2) / Math.sqrt(variance);
  return 0.5 * (1 + errorFunction(z / Math.SQRT2));
}

/** Sizes of the groups of equal values (only groups of 2 or more). */
function tieGroups(values: readonly number[]): number[] {
  const counts = new Map<number, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts.values()].filter((count) => count > 1);
}

/** The middle of `values` and its relative spread: median absolute deviation / median. */
export function centre(values: readonly number[]): { median: number; spread: number } {
  if (values.length === 0) return { median: NaN, spread: NaN };
  const middle = median([...values]);
  const spread = values.length < 2 || middle === 0 ? 0 : medianAbsoluteDeviation([...values]) / Math.abs(middle);
  return { median: middle, spread };
}
