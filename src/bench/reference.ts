import type { Clock } from '../core/clock.js';
import type { Policy } from '../core/policy.js';

/**
 * The benchmark's reference task: the smallest token bucket one would write inline, a
 * `Map<string, { tokens, last }>` with refill and take and nothing else (no validation,
 * no idle cleanup, float tokens). Every figure of `ratelab bench` is also given as a ratio
 * to this, measured in the same run, because a ratio stays comparable across machines and
 * runs where raw decisions per second do not.
 *
 * It follows the `--limiter` module contract (default export `(policy, { clock })`), so the
 * memory probe measures it like any other limiter.
 */
export default function createReferenceBucket(
  policy: Policy,
  { clock }: { clock: Clock },
): { consume(key: string, cost?: number): boolean } {
  const capacity = policy.burst ?? policy.limit;
  const perMs = policy.limit / policy.windowMs;
  const buckets = new Map<string, { tokens: number; last: number }>();
  return {
    consume(key: string, cost = 1): boolean {
      const now = clock();
      let bucket = buckets.get(key);
      if (bucket === undefined) {
        bucket = { tokens: capacity, last: now };
        buckets.set(key, bucket);
      } else {
        bucket.tokens = Math.min(capacity, bucket.tokens + (now - bucket.last) * perMs);
        bucket.last = now;
      }
      if (bucket.tokens < cost) return false;
      bucket.tokens -= cost;
      return true;
    },
  };
}
