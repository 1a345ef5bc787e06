import type { Column, ColumnStore } from '../typed-arrays.js';

/** Columns start on 8-byte boundaries, so a Float64Array view can follow any column. */
function aligned(bytes: number): number {
  return Math.ceil(bytes / 8) * 8;
}

/**
 * A {@link ColumnStore} that carves columns out of one SharedArrayBuffer, one after another
 * in the order they are asked for. Every thread builds the same meter and asks in the same
 * order, so each gets views of the same bytes. Without a buffer it only counts the bytes,
 * to size the buffer before it exists. A column is carved once: the shared table has a
 * fixed capacity and never grows.
 */
export class SharedColumns implements ColumnStore {
  private offset: number;

  constructor(
    private readonly buffer: SharedArrayBuffer | undefined,
    start: number,
  ) {
    this.offset = aligned(start);
  }

  /** The end of the last column carved: the bytes the columns need, counted from 0. */
  get end(): number {
    return this.offset;
  }

  grow<T extends Column>(column: T, length: number): T {
    const type = column.constructor as { new (buffer: SharedArrayBuffer, offset: number, length: number): T; BYTES_PER_ELEMENT: number };
    const start = this.offset;
    this.offset = aligned(start + length * type.BYTES_PER_ELEMENT);
    return this.buffer === undefined ? column : new type(this.buffer, start, length);
  }
}
