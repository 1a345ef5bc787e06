import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, type Decision, type PolicyInput } from '../../src/index.js';
import { arrivalsArb, limitListArb, policyArb, replay, type Arrival } from '../support/arbitraries.js';

/** What an enforcing limiter's `decision` becomes in shadow mode: a denial admitted, marked, every figure kept. */
function shadowed(decision: Decision): Decision {
  return decision.allowed ? decision : { ...decision, allowed: true, shadowDenied: true };
}

/** The law: shadow mode decides `arrivals` as enforcing does, state and figures alike; only denials read differently. */
function shadowMatchesEnforcing(
  algorithm: (typeof ALGORITHMS)[number],
  policy: PolicyInput,
  arrivals: Arrival[],
): void {
  const enforcing = replay(algorithm, policy, arrivals);
  expect(replay(algorithm, policy, arrivals, { enforce: false })).toEqual(enforcing.map(shadowed));
}

describe('shadow mode never changes state: the same arrivals, enforcing and in shadow', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: every decision the enforcing one, a denial admitted with shadowDenied',
    (algorithm) => {
      fc.assert(
        fc.property(policyArb, arrivalsArb({ keys: ['a', 'b'] }), (policy, arrivals) =>
          shadowMatchesEnforcing(algorithm, policy, arrivals),
        ),
        { numRuns: 500 },
      );
    },
  );

  it('several limits: each limit’s own answer kept too', () => {
    fc.assert(
      fc.property(limitListArb, arrivalsArb({ keys: ['a', 'b'] }), (list, arrivals) =>
        shadowMatchesEnforcing('token-bucket', list, arrivals),
      ),
      { numRuns: 500 },
    );
  });
});
