import type { Decision } from './decision.js';
import { RatelabError, describeValue } from './errors.js';

/**
 * What a limiter that depends on a shared store (Redis) does when the store cannot answer
 * within its timeout:
 * - `open`: admit (Stripe's choice: availability over enforcement);
 * - `closed`: deny;
 * - `local`: decide with an in-process limiter holding `limit / expectedNodes`.
 * The Redis limiter and the distributed simulator share these names so a design tried in
 * the lab is configured the same way in production.
 */
export const FAIL_MODES = ['open', 'closed', 'local'] as const;

/** One of {@link FAIL_MODES}: `open`, `closed` or `local`. */
export type FailMode = (typeof FAIL_MODES)[number];

/** `mode` if it is one of {@link FAIL_MODES}; else throws `INVALID_ARGUMENT` naming `field`. */
export function checkFailMode(mode: unknown, field = 'failMode'): FailMode {
  if ((FAIL_MODES as readonly unknown[]).includes(mode)) return mode as FailMode;
  throw new RatelabError('INVALID_ARGUMENT', `${field}: expected 'open', 'closed' or 'local', got ${describeValue(mode)}`, { field });
}

/**
 * The decision of `open` or `closed` for `cost` units while the shared store is out of
 * reach: `open` admits what the policy could ever admit, `closed` denies and says to retry
 * after `retryAfterMs` (when the store is worth asking again).
 */
export function failDecision(mode: 'open' | 'closed', capacity: number, cost: number, retryAfterMs: number): Decision {
  if (cost > capacity) return { allowed: false, limit: capacity, remaining: 0, retryAfterMs: Infinity, resetMs: 0 };
  if (mode === 'open') return { allowed: true, limit: capacity, remaining: capacity - cost, retryAfterMs: 0, resetMs: 0 };
  const wait = Math.ceil(retryAfterMs);
  return { allowed: false, limit: capacity, remaining: 0, retryAfterMs: wait, resetMs: wait };
}
