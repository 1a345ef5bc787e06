import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const CHUNK_BYTES = 1 << 20;

/**
 * Reads a text file line by line, synchronously, one chunk (1 MiB) at a time: memory is
 * one chunk plus the longest line, whatever the file's size. Synchronous so the replay
 * loop pulls arrivals without a microtask per line. Accepts `\n` and `\r\n` endings.
 */
export class LineReader {
  /** 1-based number of the line last returned. */
  lineNumber = 0;
  private fd: number | undefined;
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  private readonly decoder = new StringDecoder('utf8');
  private lines: string[] = [];
  private index = 0;
  private rest = '';

  constructor(path: string) {
    this.fd = openSync(path, 'r');
  }

  /** The next line without its ending, or undefined at the end of the file (which closes it). */
  next(): string | undefined {
    while (this.index >= this.lines.length) {
      if (!this.fill()) return undefined;
    }
    this.lineNumber += 1;
    const line = this.lines[this.index++] as string;
    return line.endsWith('\r') ? line.slice(0, -1) : line;
  }

  /** Closes the file early (safe to call twice). */
  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  private fill(): boolean {
    if (this.fd === undefined) return false;
    const bytes = readSync(this.fd, this.buffer, 0, CHUNK_BYTES, null);
    if (bytes === 0) {
      this.close();
      const last = this.rest + this.decoder.end();
      this.rest = '';
      this.lines = last === '' ? [] : [last];
      this.index = 0;
      return this.lines.length > 0;
    }
    const parts = (this.rest + this.decoder.write(this.buffer.subarray(0, bytes))).split('\n');
    this.rest = parts.pop() as string;
    this.lines = parts;
    this.index = 0;
    return true;
  }
}
