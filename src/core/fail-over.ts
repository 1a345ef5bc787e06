// Fail-over: what a limiter that depends on a store other processes share does when that
// store cannot answer, and the share of a global limit one node enforces alone (the `local`
// fail mode, and the distributed simulator's `local` strategy).

import type { Decision } from './decision.js';
import type { Policy } from './policy.js';
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

/**
 * A node's share of `units` when `nodes` nodes each enforce a global quota alone:
 * `units / nodes` rounded down, so the shares never add up to more than the whole, but at
 * least 1 while any unit is left (a node that could admit nothing would starve its keys;
 * with more nodes than units the fleet then admits `nodes`, above the whole); 0 when none is.
 */
export function shareOf(units: number, nodes: number): number {
  return units <= 0 ? 0 : Math.max(1, Math.floor(units / nodes));
}

/**
 * Each node's share of a global `policy` when `nodes` nodes enforce it alone: the limit and
 * the burst each by {@link shareOf}; the window stays. The distributed simulator's `local`
 * strategy and the Redis limiter's `failMode: 'local'` both use it.
 */
export function nodeShare(policy: Policy, nodes: number): Policy {
  const limit = shareOf(policy.limit, nodes);
  return policy.burst === undefined ? { limit, windowMs: policy.windowMs } : { limit, windowMs: policy.windowMs, burst: shareOf(policy.burst, nodes) };
}
