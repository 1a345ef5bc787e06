import { describe, expect, it } from 'vitest';
import { nodeShare, shareOf } from '../../src/core/fail-over.js';
import { type Policy } from '../../src/core/policy.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import type { RedisClient } from '../../src/redis/run-script.js';
import { nodeLimiters } from '../../src/sim/distributed/node-share.js';

describe('shareOf: a node’s share of what is left', () => {
  it.each([
    { units: 100, nodes: 4, share: 25 },
    { units: 10, nodes: 3, share: 3 },
    { units: 7, nodes: 1, share: 7 },
    { units: 3, nodes: 8, share: 1 },
    { units: 1, nodes: 1000, share: 1 },
    { units: 0, nodes: 4, share: 0 },
    { units: -5, nodes: 4, share: 0 },
  ])('$units units among $nodes nodes: $share each', ({ units, nodes, share }) => {
    expect(shareOf(units, nodes)).toBe(share);
  });
});

describe('nodeShare: the policy each node enforces alone', () => {
  it.each<{ policy: Policy; nodes: number; share: Policy }>([
    { policy: { limit: 100, windowMs: 1000 }, nodes: 4, share: { limit: 25, windowMs: 1000 } },
    { policy: { limit: 100, windowMs: 1000, burst: 30 }, nodes: 4, share: { limit: 25, windowMs: 1000, burst: 7 } },
    { policy: { limit: 10, windowMs: 60_000 }, nodes: 3, share: { limit: 3, windowMs: 60_000 } },
    { policy: { limit: 2, windowMs: 1000, burst: 1 }, nodes: 5, share: { limit: 1, windowMs: 1000, burst: 1 } },
  ])('$policy over $nodes nodes: $share', ({ policy, nodes, share }) => {
    expect(nodeShare(policy, nodes)).toEqual(share);
  });
});

/** A Redis client that always fails: every decision is the fail mode's. */
const downRedis = {
  evalsha: () => Promise.reject(new Error('connection refused')),
  eval: () => Promise.reject(new Error('connection refused')),
} as unknown as RedisClient;

/** How many of `requests` one key gets admitted at one instant. */
async function admittedAtOnce(consume: (key: string) => boolean | Promise<boolean>, requests: number): Promise<number> {
  let admitted = 0;
  for (let i = 0; i < requests; i++) if (await consume('k')) admitted += 1;
  return admitted;
}

describe('the simulator’s local nodes and the Redis limiter’s local fallback take the same share', () => {
  it.each([
    { algorithm: 'token-bucket' as const, policy: { limit: 100, windowMs: 1000, burst: 30 }, nodes: 4 },
    { algorithm: 'sliding-log' as const, policy: { limit: 10, windowMs: 1000 }, nodes: 3 },
    { algorithm: 'fixed-window' as const, policy: { limit: 3, windowMs: 1000 }, nodes: 8 },
  ])('$algorithm $policy.limit over $nodes nodes', async ({ algorithm, policy, nodes }) => {
    const now = () => 0; // one instant: no refill, no window turns
    const [node] = nodeLimiters(algorithm, policy, nodes, now);
    const redis = createRedisLimiter(algorithm, policy, {
      redis: downRedis,
      failMode: 'local',
      expectedNodes: nodes,
      clock: now,
      timeoutMs: 5,
    });
    const share = nodeShare(policy, nodes);
    const capacity = share.burst ?? share.limit;
    const requests = capacity + 5;
    expect(await admittedAtOnce((key) => node!.consume(key).allowed, requests)).toBe(capacity);
    expect(await admittedAtOnce(async (key) => (await redis.consume(key)).allowed, requests)).toBe(capacity);
  });
});
