/** Rounds for output: the figures are exact ratios of counts, printed to `digits` places. */
export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
