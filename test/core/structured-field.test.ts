import { describe, expect, it } from 'vitest';
import { parseDictionary, parseList, type Member } from '../../src/core/structured-field.js';

/** A member as plain data: the item's value and its parameters as an object. */
function plain(member: Member): unknown {
  const params = Object.fromEntries([...member.params].map(([key, item]) => [key, item.value]));
  if (member.kind === 'item') return { [member.item.kind]: member.item.value, params };
  return { inner: member.items.map((i) => i.item.value), params };
}

describe('parseList (RFC 9651 4.2.1)', () => {
  it.each([
    {
      text: '"burst";r=50;t=30',
      members: [{ string: 'burst', params: { r: 50, t: 30 } }],
      why: 'a draft-10 RateLimit item',
    },
    {
      text: '"2-in-1min"; q=2; w=60; pk=:ZmQ0YTVh:',
      members: [{ string: '2-in-1min', params: { q: 2, w: 60, pk: 'ZmQ0YTVh' } }],
      why: "express-rate-limit's draft-8 policy: spaces after ';', a byte sequence",
    },
    {
      text: '10;w=1, 1000;w=3600',
      members: [
        { integer: 10, params: { w: 1 } },
        { integer: 1000, params: { w: 3600 } },
      ],
      why: 'draft-06/07 policies: integer items',
    },
    { text: '  default ', members: [{ token: 'default', params: {} }], why: 'a token, surrounding spaces dropped' },
    {
      text: 'a, \tb',
      members: [
        { token: 'a', params: {} },
        { token: 'b', params: {} },
      ],
      why: 'OWS around the comma',
    },
    { text: '1.5;x=-2', members: [{ decimal: 1.5, params: { x: -2 } }], why: 'a decimal and a negative integer' },
    { text: '"a\\"b\\\\c"', members: [{ string: 'a"b\\c', params: {} }], why: 'escaped quote and backslash' },
    {
      text: '?1;f=?0;flag',
      members: [{ boolean: true, params: { f: false, flag: true } }],
      why: 'booleans; a bare key is true',
    },
    { text: '(1 2);p', members: [{ inner: [1, 2], params: { p: true } }], why: 'an inner list with parameters' },
    {
      text: 'x;a=1;a=2',
      members: [{ token: 'x', params: { a: 2 } }],
      why: 'a repeated parameter keeps the last value',
    },
    { text: '', members: [], why: 'an empty list' },
  ])('$text ($why)', ({ text, members }) => {
    const parsed = parseList(text);
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.value.map(plain)).toEqual(members);
  });

  it.each([
    { text: 'a,', why: 'a trailing comma' },
    { text: 'a,,b', why: 'an empty member' },
    { text: '"open', why: 'an unterminated string' },
    { text: '"\\n"', why: 'an escape other than \\" and \\\\' },
    { text: '"é"', why: 'a non-ASCII string character' },
    { text: '1234567890123456', why: 'an integer of 16 digits' },
    { text: '1.2345', why: 'a decimal with 4 fraction digits' },
    { text: '1.', why: 'a decimal without fraction digits' },
    { text: 'a;B=1', why: 'an upper-case key' },
    { text: ':abc', why: 'an unterminated byte sequence' },
    { text: '?2', why: 'a boolean other than ?0 and ?1' },
    { text: 'a b', why: 'two items without a comma' },
    { text: '@1659578233', why: 'a date: not used by the rate-limit drafts' },
    { text: '(1 2', why: 'an unterminated inner list' },
  ])('refuses $text ($why)', ({ text }) => {
    const parsed = parseList(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.why.length).toBeGreaterThan(0);
  });

  it('says where the value went wrong', () => {
    expect(parseList('a b')).toEqual({ ok: false, why: 'expected "," at "b" (position 3)' });
  });
});

describe('parseDictionary (RFC 9651 4.2.2)', () => {
  it('reads the draft-07 RateLimit field', () => {
    const parsed = parseDictionary('limit=100, remaining=99, reset=5');
    expect(parsed.ok && [...parsed.value].map(([key, member]) => [key, plain(member)])).toEqual([
      ['limit', { integer: 100, params: {} }],
      ['remaining', { integer: 99, params: {} }],
      ['reset', { integer: 5, params: {} }],
    ]);
  });

  it('a key without a value is true, with its parameters', () => {
    const parsed = parseDictionary('default;r=50;t=30');
    expect(parsed.ok && plain(parsed.value.get('default')!)).toEqual({ boolean: true, params: { r: 50, t: 30 } });
  });

  it.each([
    { text: '"name";r=1', why: 'a string is not a key' },
    { text: 'a=1,', why: 'a trailing comma' },
    { text: 'A=1', why: 'an upper-case key' },
  ])('refuses $text ($why)', ({ text }) => {
    expect(parseDictionary(text).ok).toBe(false);
  });
});
