import { encodeWtf8Into, isWellFormed, wtf8Length } from '../core/wtf8.js';

/** A Redis key as ratelab sends it: a string (sent as UTF-8), or the bytes of one UTF-8 cannot carry. */
export type RedisKey = string | Buffer;

/**
 * The Redis key of `name`: `name` itself when it is well-formed text (clients send it as
 * UTF-8), else its WTF-8 bytes (src/core/wtf8.ts). UTF-8 would turn each lone surrogate into
 * U+FFFD, making `user\uD800` and `user\uFFFD` one key in Redis and two in memory; the
 * WTF-8 bytes of a lone surrogate (ED A0 80 to ED BF BF) are no well-formed text's, so such
 * a key collides with no other.
 */
export function redisKeyOf(name: string): RedisKey {
  if (isWellFormed(name)) return name;
  const bytes = Buffer.allocUnsafe(wtf8Length(name));
  encodeWtf8Into(name, bytes);
  return bytes;
}
