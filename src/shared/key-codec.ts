import type { RatelabError } from '../core/errors.js';
import { encodeWtf8Into, isWellFormed, wtf8Length } from '../core/wtf8.js';
import { keyTooLong } from './key-bytes.js';

const encoder = new TextEncoder();

/**
 * Keys as the shared table stores them: UTF-8 bytes (WTF-8 for a key holding a lone
 * surrogate, which UTF-8 would turn into U+FFFD: see src/core/wtf8.ts), at most `maxKeyBytes`,
 * and a 32-bit hash that is never 0 (0 marks a free slot). So two keys have the same bytes
 * only when they are the same string, as in the memory limiter. One codec per attached
 * limiter: `encode` fills its scratch buffer, valid until the next call.
 */
export class KeyCodec {
  /** The last key's bytes (the first `length`). */
  readonly bytes: Uint8Array;
  length = 0;

  constructor(private readonly maxKeyBytes: number) {
    this.bytes = new Uint8Array(maxKeyBytes);
  }

  /**
   * Encodes `key` and returns its hash (FNV-1a, then murmur3's finaliser so that linear
   * probing sees well-spread values). Throws `INVALID_KEY` when it is over `maxKeyBytes`.
   */
  encode(key: string): number {
    const bytes = this.bytes;
    const max = this.maxKeyBytes;
    let length = 0;
    let ascii = key.length <= max;
    for (let i = 0; ascii && i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c >= 0x80) ascii = false;
      else bytes[length++] = c;
    }
    if (!ascii) length = this.encodeUtf8(key);
    this.length = length;
    let h = 0x811c9dc5;
    for (let i = 0; i < length; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
    h ^= h >>> 16;
    h = Math.imul(h, 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h === 0 ? 1 : h | 0;
  }

  /** Whether the last key encoded equals the `length` bytes of `stored` from `offset`. */
  equals(stored: Uint8Array, offset: number, length: number): boolean {
    if (length !== this.length) return false;
    const bytes = this.bytes;
    for (let i = 0; i < length; i++) if (stored[offset + i] !== bytes[i]) return false;
    return true;
  }

  private encodeUtf8(key: string): number {
    if (!isWellFormed(key)) return this.encodeWtf8(key);
    const { read, written } = encoder.encodeInto(key, this.bytes);
    if (read === key.length) return written;
    throw this.tooLong(encoder.encode(key).length);
  }

  /** A key with a lone surrogate: the same byte count as UTF-8 (3 for each), bytes of its own. */
  private encodeWtf8(key: string): number {
    const length = wtf8Length(key);
    if (length > this.maxKeyBytes) throw this.tooLong(length);
    return encodeWtf8Into(key, this.bytes);
  }

  private tooLong(bytes: number): RatelabError {
    return keyTooLong(bytes, this.maxKeyBytes, 'shared');
  }
}
