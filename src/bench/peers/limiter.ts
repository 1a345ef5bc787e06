// limiter's RateLimiter (a token bucket plus a per-interval cap), adapted to the `--limiter`
// module contract. It limits one stream, so a Map holds one per key, as its users do.
// A dev dependency: absent, the benchmark skips it. It reads wall time itself
// (performance.now), so it cannot follow the benchmark's virtual clock.
import type { Policy } from '../../policy.js';

export default async function createPeer(policy: Policy): Promise<{ consume(key: string, cost: number): boolean }> {
  const { RateLimiter } = await import('limiter');
  const perKey = new Map<string, InstanceType<typeof RateLimiter>>();
  return {
    consume(key, cost) {
      let limiter = perKey.get(key);
      if (limiter === undefined) {
        limiter = new RateLimiter({ tokensPerInterval: policy.limit, interval: policy.windowMs });
        perKey.set(key, limiter);
      }
      return limiter.tryRemoveTokens(cost);
    },
  };
}
