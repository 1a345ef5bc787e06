/**
 * The largest of `values`, at least `floor` (`floor` for none). A loop, not
 * `Math.max(...values)`: spreading an array into a call puts every element on the stack,
 * and a few hundred thousand (rows of a table, figures of a baseline, points of a
 * timeline) overflow it.
 */
export function largest(values: Iterable<number>, floor = -Infinity): number {
  let top = floor;
  for (const value of values) if (value > top) top = value;
  return top;
}

/** The smallest of `values`, at most `ceiling` (`ceiling` for none); a loop, as {@link largest}. */
export function smallest(values: Iterable<number>, ceiling = Infinity): number {
  let bottom = ceiling;
  for (const value of values) if (value < bottom) bottom = value;
  return bottom;
}
