import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import { arrivalsArb, limitListArb, replay } from '../support/arbitraries.js';
import { CompositeOracle, oracleFor } from '../support/oracles.js';

describe('several limits on one key, against the conjunction of their brute-force oracles', () => {
  it('decides every field (and each limit’s own answer) as the conjunction of one oracle per limit', () => {
    fc.assert(
      fc.property(limitListArb, arrivalsArb(), (list, arrivals) => {
        const oracle = new CompositeOracle('token-bucket', list);
        expect(replay('token-bucket', list, arrivals)).toEqual(
          arrivals.map(({ at, cost }) => oracle.consume(at, cost)),
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('a denied request changes no limit: a run without it decides every other request the same', () => {
    fc.assert(
      fc.property(limitListArb, arrivalsArb({ keys: ['a', 'b'] }), (list, arrivals) => {
        const decisions = replay('gcra', list, arrivals);
        const denied = decisions.flatMap((d, i) => (d.allowed ? [] : [i]));
        for (const i of denied.slice(0, 4)) {
          const without = arrivals.filter((_, j) => j !== i);
          expect(replay('gcra', list, without)).toEqual(decisions.filter((_, j) => j !== i));
        }
      }),
      { numRuns: 500 },
    );
  });

  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: a list of one limit decides as that one policy',
    (algorithm) => {
      fc.assert(
        fc.property(limitListArb, arrivalsArb(), (list, arrivals) => {
          const { name: _name, algorithm: _own, ...policy } = list[0]!;
          const oracle = oracleFor(algorithm, policy);
          expect(replay(algorithm, [policy], arrivals)).toEqual(
            arrivals.map(({ at, cost }) => oracle.consume(at, cost)),
          );
        }),
        { numRuns: 200 },
      );
    },
  );
});
