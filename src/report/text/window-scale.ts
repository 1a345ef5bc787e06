/** A y-axis for window ratios: `rows` rows of `step` above 0, up to `top` (rows * step). */
export interface WindowScale {
  step: number;
  rows: number;
  top: number;
  /** Decimals that print every row's value exactly. */
  decimals: number;
}

/** Steps whose multiples include 1.0 (the limit), finest first. */
const STEPS = [0.05, 0.1, 0.125, 0.2, 0.25, 0.5, 1];

/**
 * The scale shared by every series of a chart: the finest step that shows `peak` (and the
 * limit, 1.0) in at most `maxRows` rows, chosen so 1.0 is exactly on a row. A peak beyond
 * `maxRows` times the limit takes whole steps of more than 1, and 1.0 falls between rows.
 */
export function windowScale(peak: number, maxRows: number): WindowScale {
  const high = Math.max(1, peak);
  let step = STEPS.find((s) => Math.ceil(high / s - 1e-9) <= maxRows) ?? Math.ceil(high / maxRows);
  if (!Number.isFinite(step) || step <= 0) step = 1;
  const rows = Math.ceil(high / step - 1e-9);
  const decimals = Math.max(1, (String(step).split('.')[1] ?? '').length);
  return { step, rows, top: rows * step, decimals };
}

/** The row of `ratio` on `scale` (0 at the bottom), rounded to the nearest. */
export function rowOf(scale: WindowScale, ratio: number): number {
  return Math.round(ratio / scale.step + 1e-9);
}

/** The label of row `row`, the limit's marked, `width` wide. */
export function rowLabel(scale: WindowScale, row: number, width: number): string {
  const value = row * scale.step;
  const text = value.toFixed(scale.decimals);
  return (Math.abs(value - 1) < 1e-9 ? `limit ${text}` : text).padStart(width);
}

/** Width of the labels of `scale`'s rows. */
export function labelWidth(scale: WindowScale): number {
  return `limit ${scale.top.toFixed(scale.decimals)}`.length;
}
