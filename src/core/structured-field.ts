/**
 * A parser for the parts of RFC 9651 Structured Field Values that the rate-limit fields use:
 * Lists and Dictionaries of Items and Inner Lists, with Parameters, whose Bare Items are
 * Integers, Decimals, Strings, Tokens, Byte Sequences and Booleans. Dates (`@`) and Display
 * Strings (`%`) are refused: no rate-limit draft uses them. The algorithms follow RFC 9651
 * section 4.2 step by step, so a value a conforming parser refuses is refused here too.
 */

/** A Bare Item (RFC 9651 3.3), tagged with its type: `q=10` and `q="10"` mean different things. */
export type BareItem =
  | { kind: 'integer' | 'decimal'; value: number }
  | { kind: 'string' | 'token'; value: string }
  /** The base64 text between the colons, undecoded: the rate-limit fields only carry it (`pk`). */
  | { kind: 'bytes'; value: string }
  | { kind: 'boolean'; value: boolean };

/** Parameters in the order sent; a repeated key keeps its last value (RFC 9651 4.2.3.2). */
export type Parameters = Map<string, BareItem>;

/** An Item or an Inner List, each with its Parameters. */
export type Member =
  | { kind: 'item'; item: BareItem; params: Parameters }
  | { kind: 'inner-list'; items: { item: BareItem; params: Parameters }[]; params: Parameters };

/** A parsed value, or why the text is not one (a short phrase naming the position). */
export type Parsed<T> = { ok: true; value: T } | { ok: false; why: string };

/** Integers have at most 15 digits, decimals at most 12 before and 3 after the point. */
const INTEGER = /^-?[0-9]{1,15}$/;
const DECIMAL = /^-?[0-9]{1,12}\.[0-9]{1,3}$/;

const DIGIT = /[0-9]/;
const ALPHA = /[A-Za-z]/;
const LCALPHA = /[a-z]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

/** Thrown inside the parser only; the exported functions turn it into `{ ok: false }`. */
class Malformed extends Error {}

/** A cursor over one field value. */
class Reader {
  private pos = 0;

  constructor(private readonly text: string) {}

  get done(): boolean {
    return this.pos >= this.text.length;
  }

  peek(): string {
    return this.text.charAt(this.pos);
  }

  take(): string {
    return this.text.charAt(this.pos++);
  }

  fail(what: string): never {
    const at = this.done ? 'at the end' : `at ${JSON.stringify(this.peek())} (position ${this.pos + 1})`;
    throw new Malformed(`${what} ${at}`);
  }

  expect(char: string): void {
    if (this.peek() !== char) this.fail(`expected "${char}"`);
    this.pos++;
  }

  skipSpaces(): void {
    while (this.peek() === ' ') this.pos++;
  }

  /** Optional white space: spaces and tabs (between list members). */
  skipOws(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }
}

/** Parses a List field value (RFC 9651 4.2.1). */
export function parseList(text: string): Parsed<Member[]> {
  return parseWhole(text, (reader) => {
    const members: Member[] = [];
    while (!reader.done) {
      members.push(parseMember(reader));
      if (endOfMember(reader)) break;
    }
    return members;
  });
}

/** Parses a Dictionary field value (RFC 9651 4.2.2); a repeated key keeps its last value. */
export function parseDictionary(text: string): Parsed<Map<string, Member>> {
  return parseWhole(text, (reader) => {
    const members = new Map<string, Member>();
    while (!reader.done) {
      const key = parseKey(reader);
      if (reader.peek() === '=') {
        reader.take();
        members.set(key, parseMember(reader));
      } else {
        members.set(key, { kind: 'item', item: { kind: 'boolean', value: true }, params: parseParameters(reader) });
      }
      if (endOfMember(reader)) break;
    }
    return members;
  });
}

function parseWhole<T>(text: string, parse: (reader: Reader) => T): Parsed<T> {
  const reader = new Reader(text.replace(/^ +| +$/g, ''));
  try {
    return { ok: true, value: parse(reader) };
  } catch (error) {
    if (error instanceof Malformed) return { ok: false, why: error.message };
    throw error;
  }
}

/** After a member: true at the end of the value, else consumes the `,` before the next one. */
function endOfMember(reader: Reader): boolean {
  reader.skipOws();
  if (reader.done) return true;
  reader.expect(',');
  reader.skipOws();
  if (reader.done) reader.fail('a member after ","');
  return false;
}

function parseMember(reader: Reader): Member {
  if (reader.peek() === '(') return parseInnerList(reader);
  const item = parseBareItem(reader);
  return { kind: 'item', item, params: parseParameters(reader) };
}

function parseInnerList(reader: Reader): Member {
  reader.expect('(');
  const items: { item: BareItem; params: Parameters }[] = [];
  for (;;) {
    reader.skipSpaces();
    if (reader.peek() === ')') break;
    const item = parseBareItem(reader);
    items.push({ item, params: parseParameters(reader) });
    if (reader.peek() !== ' ' && reader.peek() !== ')') reader.fail('expected " " or ")" in an inner list');
  }
  reader.take();
  return { kind: 'inner-list', items, params: parseParameters(reader) };
}

function parseParameters(reader: Reader): Parameters {
  const params: Parameters = new Map();
  while (reader.peek() === ';') {
    reader.take();
    reader.skipSpaces();
    const key = parseKey(reader);
    let value: BareItem = { kind: 'boolean', value: true };
    if (reader.peek() === '=') {
      reader.take();
      value = parseBareItem(reader);
    }
    params.set(key, value);
  }
  return params;
}

function parseKey(reader: Reader): string {
  const first = reader.peek();
  if (!LCALPHA.test(first) && first !== '*') reader.fail('expected a key (lower-case letter or "*")');
  let key = '';
  while (!reader.done && KEY_CHAR.test(reader.peek())) key += reader.take();
  return key;
}

function parseBareItem(reader: Reader): BareItem {
  const first = reader.peek();
  if (first === '-' || DIGIT.test(first)) return parseNumber(reader);
  if (first === '"') return parseString(reader);
  if (first === ':') return parseBytes(reader);
  if (first === '?') return parseBoolean(reader);
  if (first === '*' || ALPHA.test(first)) return parseToken(reader);
  return reader.fail('expected an item');
}

function parseNumber(reader: Reader): BareItem {
  let text = reader.peek() === '-' ? reader.take() : '';
  while (!reader.done && (DIGIT.test(reader.peek()) || (reader.peek() === '.' && !text.includes('.')))) {
    text += reader.take();
  }
  if (INTEGER.test(text)) return { kind: 'integer', value: Number(text) };
  if (DECIMAL.test(text)) return { kind: 'decimal', value: Number(text) };
  return reader.fail(`${JSON.stringify(text)} is neither an integer (1-15 digits) nor a decimal (1-12 . 1-3 digits)`);
}

function parseString(reader: Reader): BareItem {
  reader.expect('"');
  let value = '';
  for (;;) {
    if (reader.done) reader.fail('an unterminated string');
    const char = reader.take();
    if (char === '"') return { kind: 'string', value };
    if (char === '\\') {
      const escaped = reader.peek();
      if (escaped !== '"' && escaped !== '\\') reader.fail('a string escape other than \\" or \\\\');
      value += reader.take();
    } else if (char < ' ' || char > '~') {
      reader.fail('a string character outside printable ASCII');
    } else {
      value += char;
    }
  }
}

function parseToken(reader: Reader): BareItem {
  let value = reader.take();
  while (!reader.done && TOKEN_CHAR.test(reader.peek())) value += reader.take();
  return { kind: 'token', value };
}

function parseBytes(reader: Reader): BareItem {
  reader.expect(':');
  let value = '';
  while (!reader.done && BASE64_CHAR.test(reader.peek())) value += reader.take();
  reader.expect(':');
  return { kind: 'bytes', value };
}

function parseBoolean(reader: Reader): BareItem {
  reader.expect('?');
  const char = reader.peek();
  if (char !== '0' && char !== '1') reader.fail('expected ?0 or ?1');
  reader.take();
  return { kind: 'boolean', value: char === '1' };
}
