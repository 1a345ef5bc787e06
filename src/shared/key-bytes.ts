import { RatelabError } from '../core/errors.js';

const encoder = new TextEncoder();

/**
 * Throws `INVALID_KEY` (see {@link keyTooLong}) unless `key` is at most `maxKeyBytes` bytes
 * in UTF-8 (a lone surrogate counts 3, as U+FFFD would). Each UTF-16 unit takes 1 to 3
 * bytes, so most keys are settled by their length alone, without encoding them.
 */
export function checkKeyBytes(key: string, maxKeyBytes: number, limiter: string): void {
  if (key.length * 3 <= maxKeyBytes) return;
  const bytes = encoder.encode(key).length;
  if (bytes > maxKeyBytes) throw keyTooLong(bytes, maxKeyBytes, limiter);
}

/** The `INVALID_KEY` of a key `bytes` long in UTF-8, over the `limiter` kind's `maxKeyBytes`. */
export function keyTooLong(bytes: number, maxKeyBytes: number, limiter: string): RatelabError {
  return new RatelabError(
    'INVALID_KEY',
    `key: ${bytes} bytes in UTF-8, over the ${limiter} limiter's maxKeyBytes (${maxKeyBytes})`,
    { field: 'key' },
  );
}
