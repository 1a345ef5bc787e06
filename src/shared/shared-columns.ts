import type { Column, ColumnStore } from '../core/typed-arrays.js';

/** Bytes of a cache line: every region of the shared buffer and every column starts on one. */
export const LINE_BYTES = 64;

/** `bytes` rounded up to a whole cache line. */
export function lineAligned(bytes: number): number {
  return Math.ceil(bytes / LINE_BYTES) * LINE_BYTES;
}

/**
 * A {@link ColumnStore} that carves columns out of one SharedArrayBuffer, one after another
 * in the order they are asked for. Every thread builds the same meter and asks in the same
 * order, so each gets views of the same bytes. Without a buffer it only counts the bytes,
 * to size the buffer before it exists. A column is carved once: the shared table has a
 * fixed capacity and never grows. Each column starts on a cache line (64 B), so the rows of
 * one chunk (see ROW_CHUNK in layout.ts) share lines with no other chunk's.
 */
export class SharedColumns implements ColumnStore {
  private offset: number;

  constructor(
    private readonly buffer: SharedArrayBuffer | undefined,
    start: number,
  ) {
    this.offset = lineAligned(start);
  }

  /** The end of the last column carved: the bytes the columns need, counted from 0. */
  get end(): number {
    return this.offset;
  }

  grow<T extends Column>(column: T, length: number): T {
    const type = column.constructor as {
      new (buffer: SharedArrayBuffer, offset: number, length: number): T;
      BYTES_PER_ELEMENT: number;
    };
    const start = this.offset;
    this.offset = lineAligned(start + length * type.BYTES_PER_ELEMENT);
    return this.buffer === undefined ? column : new type(this.buffer, start, length);
  }
}
