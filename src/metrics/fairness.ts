/**
 * Jain's fairness index `(sum x)^2 / (n * sum x^2)` over non-negative shares: 1 when all
 * are equal, down to 1/n when one gets everything. Undefined (null) for fewer than two
 * shares; 1 when every share is 0 (all treated alike).
 */
export function jainIndex(shares: Iterable<number>): number | null {
  let n = 0;
  let sum = 0;
  let squares = 0;
  for (const x of shares) {
    n += 1;
    sum += x;
    squares += x * x;
  }
  if (n < 2) return null;
  return squares === 0 ? 1 : (sum * sum) / (n * squares);
}
