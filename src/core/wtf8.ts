/**
 * WTF-8: UTF-8 extended to lone surrogates, each written as the three bytes UTF-8 would
 * give its code point (U+D800-U+DFFF: ED A0 80 to ED BF BF, which no well-formed text
 * encodes to). It equals UTF-8 on well-formed text and, unlike UTF-8 (which turns every lone
 * surrogate into U+FFFD, EF BF BD), is injective on all JS strings: two strings have the
 * same bytes only when they are the same string. Stores that keep keys as bytes (the shared
 * table, Redis) use it, so they keep apart exactly the keys a Map does.
 */

/** Whether `text` has no lone surrogate (`String.prototype.isWellFormed`, ES2024, in every Node this package supports). */
export function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}

/** The bytes of `text` in WTF-8. */
export function wtf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (isPair(text, i)) {
      bytes += 4;
      i += 1;
    } else bytes += 3;
  }
  return bytes;
}

/** Writes `text` in WTF-8 at the start of `into` (at least {@link wtf8Length} bytes); returns the bytes written. */
export function encodeWtf8Into(text: string, into: Uint8Array): number {
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    let point = text.charCodeAt(i);
    if (isPair(text, i)) {
      point = 0x10000 + ((point - 0xd800) << 10) + (text.charCodeAt(i + 1) - 0xdc00);
      i += 1;
    }
    at = writePoint(point, into, at);
  }
  return at;
}

/** Whether a high surrogate at `i` is followed by a low one: a pair, one code point. */
function isPair(text: string, i: number): boolean {
  const high = text.charCodeAt(i);
  if (high < 0xd800 || high > 0xdbff) return false;
  const low = text.charCodeAt(i + 1);
  return low >= 0xdc00 && low <= 0xdfff;
}

function writePoint(point: number, into: Uint8Array, at: number): number {
  if (point < 0x80) {
    into[at] = point;
    return at + 1;
  }
  if (point < 0x800) {
    into[at] = 0xc0 | (point >> 6);
    into[at + 1] = 0x80 | (point & 0x3f);
    return at + 2;
  }
  if (point < 0x10000) {
    into[at] = 0xe0 | (point >> 12);
    into[at + 1] = 0x80 | ((point >> 6) & 0x3f);
    into[at + 2] = 0x80 | (point & 0x3f);
    return at + 3;
  }
  into[at] = 0xf0 | (point >> 18);
  into[at + 1] = 0x80 | ((point >> 12) & 0x3f);
  into[at + 2] = 0x80 | ((point >> 6) & 0x3f);
  into[at + 3] = 0x80 | (point & 0x3f);
  return at + 4;
}
