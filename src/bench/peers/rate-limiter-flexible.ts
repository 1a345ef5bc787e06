// rate-limiter-flexible's RateLimiterMemory, adapted to the `--limiter` module contract so the
// benchmark runs it like any other limiter. A dev dependency: absent, the benchmark skips it.
// It reads wall time itself (Date.now) and keeps a timer per key, so it cannot follow the
// benchmark's virtual clock: the bench gives it a policy no real call rate reaches (see
// PEER_POLICY in ../subjects.ts).
import type { Policy } from '../../core/policy.js';

/** The options `policy` becomes: points per duration in seconds. */
function options(policy: Policy): { points: number; duration: number } {
  return { points: policy.burst ?? policy.limit, duration: policy.windowMs / 1000 };
}

/** How the peer is built under `policy`, as the report prints it. */
export function configuration(policy: Policy): string {
  return `new RateLimiterMemory(${JSON.stringify(options(policy))}); consume(key, cost), awaited (reads Date.now, a timer per key)`;
}

export default async function createPeer(
  policy: Policy,
): Promise<{ consume(key: string, cost: number): Promise<boolean> }> {
  const { RateLimiterMemory } = await import('rate-limiter-flexible');
  const limiter = new RateLimiterMemory(options(policy));
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
