import { describeValue } from '../core/errors.js';

/**
 * Why `key` cannot go unchanged into an HTTP header value, or undefined when it can. A key
 * is sent as is only when the endpoint reads back the very same text: printable ASCII
 * (U+0020 to U+007E), not empty, with no space at either end. Anything else would be
 * refused by Node (`用户`, an emoji, U+2028, a control), sent as one Latin-1 byte where
 * the trace meant UTF-8 (`é`), or trimmed by the endpoint (` a` and `a` would be one key),
 * so the endpoint would be judged on keys other than the trace's.
 */
function headerValueProblem(key: string): string | undefined {
  if (key === '') return 'it is empty';
  const unprintable = /[^\x20-\x7e]/u.exec(key);
  if (unprintable) return `a header value carries printable ASCII only, and ${codePoint(unprintable[0])} is not`;
  if (key.startsWith(' ') || key.endsWith(' ')) return 'the endpoint strips the spaces at either end of a header value';
  return undefined;
}

/**
 * The message for a key that cannot be sent unchanged in `header` (`--key-header X-API-Key`,
 * `header X-API-Key`), or undefined when it can: the key quoted, where it would go, why,
 * and what to do.
 */
export function unsendableKey(key: string, header: string): string | undefined {
  const why = headerValueProblem(key);
  if (why === undefined) return undefined;
  return `key ${describeValue(key)} cannot be sent unchanged in the ${header}: ${why}; rewrite such keys (hash or percent-encode them) before the replay`;
}

function codePoint(character: string): string {
  const code = character.codePointAt(0) as number;
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;
}
