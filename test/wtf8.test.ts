import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeWtf8Into, isWellFormed, wtf8Length } from '../src/core/wtf8.js';

/** Any UTF-16 code units, lone surrogates and pairs often (a plain string rarely holds one). */
const units = fc.array(
  fc.oneof(
    fc.integer({ min: 0xd800, max: 0xdfff }),
    fc.integer({ min: 0, max: 0xffff }),
    fc.integer({ min: 0, max: 0x7f }),
  ),
  { maxLength: 24 },
);
const anyString = units.map((codes) => String.fromCharCode(...codes));

function wtf8(text: string): Uint8Array {
  const bytes = new Uint8Array(wtf8Length(text));
  expect(encodeWtf8Into(text, bytes)).toBe(bytes.length);
  return bytes;
}

/** The oracle: decodes 1-4 byte sequences to code points, and those to UTF-16 (a surrogate's point is its own unit). */
function decode(bytes: Uint8Array): string {
  let text = '';
  for (let i = 0; i < bytes.length;) {
    const lead = bytes[i] as number;
    const length = lead < 0x80 ? 1 : lead < 0xe0 ? 2 : lead < 0xf0 ? 3 : 4;
    let point = length === 1 ? lead : lead & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) point = (point << 6) | ((bytes[i + k] as number) & 0x3f);
    text += String.fromCodePoint(point);
    i += length;
  }
  return text;
}

describe('WTF-8', () => {
  it('is UTF-8 on well-formed text', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), anyString.filter(isWellFormed)), (text) => {
        expect(Buffer.from(wtf8(text)).equals(Buffer.from(text, 'utf8'))).toBe(true);
      }),
      { seed: 8, numRuns: 500 },
    );
  });

  it('is injective on every string: decoding gives the string back, lone surrogates included', () => {
    fc.assert(
      fc.property(anyString, (text) => {
        expect(decode(wtf8(text))).toBe(text);
      }),
      { seed: 16, numRuns: 1000 },
    );
  });

  it.each([
    ['a lone high surrogate', 'user\uD800', '75736572eda080'],
    ['a lone low surrogate', 'user\uDC00', '75736572edb080'],
    ['U+FFFD, what UTF-8 makes of both', 'user\uFFFD', '75736572efbfbd'],
    ['a pair: one code point', 'user\uD83D\uDE00', '75736572f09f9880'],
    ['a pair reversed: two lone surrogates', 'user\uDE00\uD83D', '75736572edb880eda0bd'],
  ])('%s', (_what, text, hex) => {
    expect(Buffer.from(wtf8(text)).toString('hex')).toBe(hex);
  });
});
