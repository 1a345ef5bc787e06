import type { Clock } from '../../core/clock.js';
import { createLimiter, type RateLimiter } from '../../memory/limiter.js';
import type { Algorithm, Policy } from '../../core/policy.js';
import type { Design, Verdict } from './design.js';

const ADMIT: Verdict = { allowed: true };

/**
 * `central`: one limiter shared by every node, as a Redis store would be. Exact: with the
 * same round trip for every call, the store sees every request the same time later, in
 * the same order, so it decides as one limiter at the arrival times. While the store is
 * down, what the nodes admit (open, or on their local limiters) never reaches it, so
 * after the outage it may admit again requests that a continuous count would deny.
 */
export class CentralDesign implements Design {
  readonly remote = true;
  readonly needsStore = true;
  private readonly store: RateLimiter;

  constructor(algorithm: Algorithm, policy: Policy, clock: Clock) {
    this.store = createLimiter(algorithm, policy, { clock });
  }

  decide(_node: number, key: string, cost: number): Verdict {
    return this.store.consume(key, cost);
  }

  decideOpen(): Verdict {
    return ADMIT;
  }

  admittedLocally(): void {}

  /** No call of its own: its calls are its decisions. */
  advance(): void {}
}
