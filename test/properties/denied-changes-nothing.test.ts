import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import { arrivalsArb, policyArb, replay } from '../support/arbitraries.js';

describe.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s', (algorithm) => {
  it('a denied request changes no state: a run without it decides every other request the same', () => {
    fc.assert(
      fc.property(policyArb, arrivalsArb({ keys: ['a', 'b'] }), (policy, arrivals) => {
        const decisions = replay(algorithm, policy, arrivals);
        const denied = decisions.flatMap((d, i) => (d.allowed ? [] : [i]));
        for (const i of denied.slice(0, 4)) {
          const without = arrivals.filter((_, j) => j !== i);
          expect(replay(algorithm, policy, without)).toEqual(decisions.filter((_, j) => j !== i));
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('a query (cost 0) changes no state either', () => {
    fc.assert(
      fc.property(policyArb, arrivalsArb({ keys: ['a', 'b'] }), (policy, arrivals) => {
        const decisions = replay(algorithm, policy, arrivals);
        const kept = arrivals.flatMap((arrival, i) => (arrival.cost === 0 ? [] : [i]));
        expect(
          replay(
            algorithm,
            policy,
            kept.map((i) => arrivals[i]!),
          ),
        ).toEqual(kept.map((i) => decisions[i]));
      }),
      { numRuns: 500 },
    );
  });
});
