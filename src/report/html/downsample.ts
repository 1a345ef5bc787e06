/**
 * Series sharing one x axis, thinned to at most `maxPoints` points for a chart: the
 * points are cut into `maxPoints / 2` consecutive groups, and each group keeps, per
 * series, its lowest and its highest value (in the order they came), so a one-bucket spike
 * (a fixed window's 2x) survives any thinning. Series no longer than `maxPoints` come back
 * unchanged. `x` is each point's position; a group's two points sit at the x of its first
 * point and of the point halfway through it.
 */
export function downsampleMinMax(
  x: readonly number[],
  series: readonly (readonly number[])[],
  maxPoints: number,
): { x: number[]; series: number[][] } {
  if (x.length <= maxPoints) return { x: [...x], series: series.map((values) => [...values]) };
  const groups = Math.max(1, Math.floor(maxPoints / 2));
  const size = Math.ceil(x.length / groups);
  const outX: number[] = [];
  const outSeries = series.map((): number[] => []);
  for (let start = 0; start < x.length; start += size) {
    const end = Math.min(start + size, x.length);
    outX.push(x[start] as number, x[start + Math.floor((end - start) / 2)] as number);
    series.forEach((values, s) => {
      const [first, second] = extremes(values, start, end);
      (outSeries[s] as number[]).push(first, second);
    });
  }
  return { x: outX, series: outSeries };
}

/** The lowest and highest of `values[start..end)`, in the order they occur. */
function extremes(values: readonly number[], start: number, end: number): [number, number] {
  let low = start;
  let high = start;
  for (let i = start + 1; i < end; i++) {
    if ((values[i] as number) < (values[low] as number)) low = i;
    if ((values[i] as number) > (values[high] as number)) high = i;
  }
  const a = values[low] as number;
  const b = values[high] as number;
  return low <= high ? [a, b] : [b, a];
}
