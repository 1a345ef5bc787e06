import { RatelabError, describeValue } from './errors.js';
import { ALGORITHMS, type Algorithm } from './policy.js';

/** Throws `UNKNOWN_ALGORITHM` unless `name` is one of {@link ALGORITHMS}. */
export function checkAlgorithm(name: unknown, field = 'algorithm'): Algorithm {
  if (typeof name === 'string' && (ALGORITHMS as readonly string[]).includes(name)) return name as Algorithm;
  throw new RatelabError(
    'UNKNOWN_ALGORITHM',
    `${field}: expected one of ${ALGORITHMS.join(', ')}, got ${describeValue(name)}`,
    { field },
  );
}

/**
 * Whether `name` can name a policy (a tier) in the RateLimit headers: a Structured Field
 * String holds printable ASCII only (RFC 9651 3.3.3).
 */
export function isHeaderSafeName(name: string): boolean {
  return /^[\x20-\x7e]*$/.test(name);
}
