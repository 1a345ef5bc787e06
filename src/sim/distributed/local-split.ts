import type { RateLimiter } from '../../memory/limiter.js';
import type { Design, Verdict } from './design.js';

/**
 * `local-split`: each node enforces its share `limit / N` alone (see `nodeShare`), with
 * no network and no store. It never admits more than the global limit in total, but a
 * node that gets more than 1/N of a key's traffic denies while the others have quota to
 * spare: false denials, worst under a skewed load balancer.
 */
export class LocalSplitDesign implements Design {
  readonly remote = false;
  readonly needsStore = false;

  constructor(private readonly limiters: readonly RateLimiter[]) {}

  decide(node: number, key: string, cost: number): Verdict {
    return (this.limiters[node] as RateLimiter).consume(key, cost);
  }

  decideOpen(node: number, key: string, cost: number): Verdict {
    return this.decide(node, key, cost);
  }

  admittedLocally(): void {}

  /** Never calls the store. */
  advance(): void {}
}
