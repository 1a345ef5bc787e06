// limiter's RateLimiter (a token bucket plus a per-interval cap), adapted to the `--limiter`
// module contract. It limits one stream, so a Map holds one per key, as its users do.
// A dev dependency: absent, the benchmark skips it. It reads wall time itself
// (performance.now), so it cannot follow the benchmark's virtual clock: the bench gives it a
// policy no real call rate reaches (see PEER_POLICY in ../subjects.ts).
import type { Policy } from '../../core/policy.js';

/** The options `policy` becomes: tokens per interval in ms. */
function options(policy: Policy): { tokensPerInterval: number; interval: number } {
  return { tokensPerInterval: policy.limit, interval: policy.windowMs };
}

/** How the peer is built under `policy`, as the report prints it. */
export function configuration(policy: Policy): string {
  return `new RateLimiter(${JSON.stringify(options(policy))}) per key in a Map; tryRemoveTokens(cost) (reads performance.now)`;
}

export default async function createPeer(policy: Policy): Promise<{ consume(key: string, cost: number): boolean }> {
  const { RateLimiter } = await import('limiter');
  const perKey = new Map<string, InstanceType<typeof RateLimiter>>();
  return {
    consume(key, cost) {
      let limiter = perKey.get(key);
      if (limiter === undefined) {
        limiter = new RateLimiter(options(policy));
        perKey.set(key, limiter);
      }
      return limiter.tryRemoveTokens(cost);
    },
  };
}
