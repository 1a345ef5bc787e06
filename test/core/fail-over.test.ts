// The one fail-over module (src/core/fail-over.ts): what every limiter over a shared store
// (Redis, a cluster primary, any backend on the seam) decides while its store cannot answer.
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, type Algorithm, type Policy } from '../../src/core/policy.js';
import { checkPolicy } from '../../src/core/policy.js';
import {
  checkExpectedNodes,
  FailOver,
  localShareLimits,
  localSharePolicy,
  nodeShare,
  type FailMode,
} from '../../src/core/fail-over.js';
import type { Decision } from '../../src/core/decision.js';
import { checkLimitList } from '../../src/core/limit-list.js';
import { createLimiter } from '../../src/memory/limiter.js';
import { expectRatelabError } from '../support/errors.js';

describe('FailOver: the decision of each fail mode', () => {
  const CAPACITY = 5;
  const RETRY_MS = 249.2;
  it.each<{ mode: 'open' | 'closed'; cost: number; decision: object; why: string }>([
    {
      mode: 'open',
      cost: 2,
      decision: { allowed: true, limit: 5, remaining: 3, retryAfterMs: 0, resetMs: 0, reason: 'fail-open' },
      why: 'admits what the policy could admit',
    },
    {
      mode: 'open',
      cost: 6,
      decision: { allowed: false, limit: 5, remaining: 0, retryAfterMs: Infinity, resetMs: 0, reason: 'fail-open' },
      why: 'never admits a cost over capacity',
    },
    {
      mode: 'closed',
      cost: 1,
      decision: { allowed: false, limit: 5, remaining: 0, retryAfterMs: 250, resetMs: 250, reason: 'fail-closed' },
      why: 'denies until the store is worth asking again (whole ms, up)',
    },
    {
      mode: 'closed',
      cost: 6,
      decision: { allowed: false, limit: 5, remaining: 0, retryAfterMs: Infinity, resetMs: 0, reason: 'fail-closed' },
      why: 'a cost over capacity can never be admitted',
    },
  ])('$mode, cost $cost: $why', ({ mode, cost, decision }) => {
    expect(new FailOver(mode, CAPACITY, RETRY_MS, undefined).decide('k', cost)).toEqual(decision);
  });

  it('local: decides with the local share, counting down, and forgets a key on reset', () => {
    const local = createLimiter('fixed-window', { limit: 2, windowMs: 1000 }, { clock: () => 0 });
    const failOver = new FailOver('local', 4, RETRY_MS, local);
    expect([1, 2, 3].map(() => failOver.decide('k', 1))).toMatchObject([
      { allowed: true, remaining: 1, reason: 'local-fallback' },
      { allowed: true, remaining: 0, reason: 'local-fallback' },
      { allowed: false, remaining: 0, reason: 'local-fallback' },
    ]);
    failOver.forget('k');
    expect(failOver.decide('k', 1)).toMatchObject({ allowed: true, remaining: 1 });
  });
});

describe('checkExpectedNodes', () => {
  it.each<[FailMode, unknown, number | undefined]>([
    ['local', 3, 3],
    ['open', undefined, undefined],
    ['closed', 'ignored', undefined],
  ])('failMode %s, expectedNodes %s: %s', (mode, nodes, expected) => {
    expect(checkExpectedNodes(mode, nodes)).toBe(expected);
  });

  it.each([undefined, 0, 1.5, '2', Number.NaN])('refuses %s under local, naming who shares the limit', (nodes) => {
    const error = expectRatelabError(
      () => checkExpectedNodes('local', nodes, 'workers'),
      'INVALID_ARGUMENT',
      'expectedNodes',
    );
    expect(error.message).toContain('number of workers sharing the limit');
  });
});

describe('localSharePolicy: the local share, built from the checked limits', () => {
  // The Redis limiter built its share from the checked limits (burst: capacity), the cluster
  // worker from the raw policy: the same limits for every algorithm, so one way serves both.
  const POLICIES: Policy[] = [
    { limit: 100, windowMs: 1000 },
    { limit: 100, windowMs: 1000, burst: 30 },
    { limit: 10, windowMs: 60_000, burst: 400 },
    { limit: 3, windowMs: 700 },
  ];
  const cases = ALGORITHMS.flatMap((algorithm) =>
    POLICIES.flatMap((policy) => [1, 3, 8, 1000].map((nodes) => [algorithm, policy, nodes] as const)),
  );
  it.each(cases)('%s %o over %i nodes: the limits of the raw policy’s share', (algorithm: Algorithm, policy, nodes) => {
    const share = localSharePolicy(checkPolicy(policy, algorithm), nodes);
    expect(checkPolicy(share, algorithm)).toEqual(checkPolicy(nodeShare(policy, nodes), algorithm));
  });
});

describe('several limits while the store is away', () => {
  // 4 per second (GCRA, burst 6) and 100 per hour (fixed window), named.
  const LIST = checkLimitList('gcra', [
    { limit: 4, windowMs: 1000, burst: 6, name: 'second' },
    { limit: 100, windowMs: 3_600_000, name: 'hour', algorithm: 'fixed-window' },
  ]);

  it('localShareLimits: every limit’s share over 3 nodes, its name and algorithm kept', () => {
    expect(checkLimitList('gcra', localShareLimits(LIST, 3))).toEqual([
      { name: 'second', algorithm: 'gcra', limit: 1, windowMs: 1000, capacity: 2 },
      { name: 'hour', algorithm: 'fixed-window', limit: 33, windowMs: 3_600_000, capacity: 33 },
    ]);
  });

  it.each<[FailMode, number, Partial<Decision>, boolean[], string]>([
    ['open', 1, { allowed: true, limit: 6, remaining: 5, retryAfterMs: 0 }, [true, true], 'the least remaining binds'],
    ['open', 7, { allowed: false, limit: 6, remaining: 0, retryAfterMs: Infinity }, [false, true], 'over 6 never fits'],
    ['closed', 1, { allowed: false, limit: 6, remaining: 0, retryAfterMs: 250 }, [false, false], 'every limit waits'],
  ])('%s, cost %i: %o, each limit %o (%s)', (mode, cost, decision, each) => {
    const failed = new FailOver(mode, 6, 249.2, undefined, LIST).decide('k', cost);
    expect(failed).toMatchObject(decision);
    expect(failed.limits?.map((l) => [l.name, l.allowed])).toEqual([
      ['second', each[0]],
      ['hour', each[1]],
    ]);
  });
});
