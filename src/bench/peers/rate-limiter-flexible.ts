// rate-limiter-flexible's RateLimiterMemory, adapted to the `--limiter` module contract so the
// benchmark runs it like any other limiter. A dev dependency: absent, the benchmark skips it.
// It reads wall time itself (Date.now) and keeps a timer per key, so it cannot follow the
// benchmark's virtual clock: it sees the real decision rate, not the workload's.
import type { Policy } from '../../policy.js';

export default async function createPeer(policy: Policy): Promise<{ consume(key: string, cost: number): Promise<boolean> }> {
  const { RateLimiterMemory } = await import('rate-limiter-flexible');
  const limiter = new RateLimiterMemory({ points: policy.burst ?? policy.limit, duration: policy.windowMs / 1000 });
  return {
    // It rejects with its result object (not an Error) when the key is over its limit.
    consume: (key, cost) =>
      limiter.consume(key, cost).then(
        () => true,
        (reason: unknown) => {
          if (reason instanceof Error) throw reason;
          return false;
        },
      ),
  };
}
