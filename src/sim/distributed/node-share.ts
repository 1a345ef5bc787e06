import type { Clock } from '../../clock.js';
import { createLimiter, type RateLimiter } from '../../memory/limiter.js';
import type { Algorithm, Policy } from '../../policy.js';

/**
 * Each node's share of a global policy when `nodes` nodes enforce it alone: `limit / N`
 * and `burst / N`, rounded down so that the shares never add up to more than the global
 * limit, but at least 1 (a node that could admit nothing would not be a limiter; with
 * more nodes than the limit the fleet then admits N per window, above the limit).
 */
export function nodeShare(policy: Policy, nodes: number): Policy {
  const share = (units: number) => Math.max(1, Math.floor(units / nodes));
  const limit = share(policy.limit);
  return policy.burst === undefined ? { limit, windowMs: policy.windowMs } : { limit, windowMs: policy.windowMs, burst: share(policy.burst) };
}

/** One in-memory limiter per node, each with its {@link nodeShare} of `policy`, all on `clock`. */
export function nodeLimiters(algorithm: Algorithm, policy: Policy, nodes: number, clock: Clock): RateLimiter[] {
  const share = nodeShare(policy, nodes);
  return Array.from({ length: nodes }, () => createLimiter(algorithm, share, { clock }));
}
