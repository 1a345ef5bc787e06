// Helpers for state kept in typed-array columns (the algorithms, the memory store and the
// lab's window ledger all keep one slot per key in such columns). Neutral: no layer owns them.

/** Returns `column` grown to `length` entries, contents kept. */
export function grow<T extends Float64Array | Uint32Array | Int32Array | Uint8Array>(column: T, length: number): T {
  if (column.length >= length) return column;
  const next = new (column.constructor as new (n: number) => T)(length);
  next.set(column);
  return next;
}

/**
 * `floor(a / b)` for non-negative `a` and positive `b`, exact for whole numbers below
 * 2^53: the float quotient can round up to the next integer, so it is checked both ways.
 */
export function floorDiv(a: number, b: number): number {
  let q = Math.floor(a / b);
  if (q * b > a) q -= 1;
  else if ((q + 1) * b <= a) q += 1;
  return q;
}

/** A typed-array column as the meters and stores keep them. */
export type Column = Float64Array | Uint32Array | Int32Array;

/**
 * Where a meter's columns live. Private memory grows them by copying ({@link grow}); the
 * shared limiter (src/shared/) hands out views of one SharedArrayBuffer instead, so the
 * same decision code runs over memory every thread sees.
 */
export interface ColumnStore {
  /** `column` with room for `length` entries, contents kept. */
  grow<T extends Column>(column: T, length: number): T;
}

/** Columns in this thread's own memory: grown by copying into a larger array. */
export const PRIVATE_COLUMNS: ColumnStore = { grow };
