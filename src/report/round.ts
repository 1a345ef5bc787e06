/** Rounds for output to `digits` decimal places: the figures are exact ratios of counts. */
export function roundToPlaces(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Rounds for output to `digits` significant digits: enough for a chart, short in a diff. */
export function roundToSignificant(value: number, digits: number): number {
  return Number(value.toPrecision(digits));
}
