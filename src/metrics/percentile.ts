import { weightedQuantile } from 'simple-statistics';

/**
 * The lab's one percentile: nearest rank. The q-quantile (0 <= q <= 1) of n values is the
 * smallest value that at least q * n of them do not exceed, that is the ceil(q * n)-th
 * smallest (the smallest for q = 0). It is always a value that occurred, never one
 * interpolated between two (a latency nobody waited), and it can be read from counts per
 * value without listing the values. simple-statistics' `weightedQuantile` computes it;
 * with every weight 1 these are plain samples.
 *
 * The median (`median` from simple-statistics, the mean of the two middle values for even
 * n) is a different statistic; the 50th percentile here is the lower middle value.
 */
export function percentiles(values: ArrayLike<number>, qs: readonly number[]): number[] {
  const list = Array.from(values);
  return weightedQuantile(
    list,
    list.map(() => 1),
    qs,
  );
}

/**
 * {@link percentiles} of the values that `counts` holds `count` times each (value ->
 * count, counts >= 0, at least one above 0), without expanding them.
 */
export function percentilesOfCounts(counts: ReadonlyMap<number, number>, qs: readonly number[]): number[] {
  return weightedQuantile([...counts.keys()], [...counts.values()], qs);
}
