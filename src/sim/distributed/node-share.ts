import type { Clock } from '../../core/clock.js';
import { createLimiter, type RateLimiter } from '../../memory/limiter.js';
import { nodeShare } from '../../core/fail-over.js';
import { type Algorithm, type Policy } from '../../core/policy.js';

/** One in-memory limiter per node, each with its {@link nodeShare} of `policy`, all on `clock`. */
export function nodeLimiters(algorithm: Algorithm, policy: Policy, nodes: number, clock: Clock): RateLimiter[] {
  const share = nodeShare(policy, nodes);
  return Array.from({ length: nodes }, () => createLimiter(algorithm, share, { clock }));
}
