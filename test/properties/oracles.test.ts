import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Algorithm, Decision, Policy } from '../../src/index.js';
import { arrivalsArb, policyArb, replay, type Arrival } from '../support/arbitraries.js';
import { inWindow, inWindowOf, oracleFor } from '../support/oracles.js';

const RUNS = 1500;

/** The admitted requests of a run, from the limiter's own decisions. */
function admittedOf(arrivals: readonly Arrival[], decisions: readonly Decision[]): { at: number; cost: number }[] {
  return arrivals
    .filter((_, i) => decisions[i]?.allowed && arrivals[i]!.cost > 0)
    .map(({ at, cost }) => ({ at, cost }));
}

/** Checks every decision of `algorithm` against its brute-force oracle, then `bound`. */
function matchesOracle(
  algorithm: Algorithm,
  bound: (policy: Policy, admitted: { at: number; cost: number }[]) => void,
): void {
  fc.assert(
    fc.property(policyArb, arrivalsArb(), (policy, arrivals) => {
      const decisions = replay(algorithm, policy, arrivals);
      const oracle = oracleFor(algorithm, policy);
      expect(decisions).toEqual(arrivals.map(({ at, cost }) => oracle.consume(at, cost)));
      bound(policy, admittedOf(arrivals, decisions));
    }),
    { numRuns: RUNS },
  );
}

describe('against brute-force oracles (every Decision field, thousands of random arrival sequences)', () => {
  it('sliding log: admits exactly what the oracle admits, never more than limit in any (t - W, t]', () => {
    matchesOracle('sliding-log', ({ limit, windowMs }, admitted) => {
      for (const { at } of admitted) expect(inWindow(admitted, at, windowMs)).toBeLessThanOrEqual(limit);
    });
  });

  it('token bucket: matches the oracle, never more than capacity + rate * dt in any interval', () => {
    matchesOracle('token-bucket', ({ limit, windowMs, burst }, admitted) => {
      const capacity = burst ?? limit;
      for (let i = 0; i < admitted.length; i++) {
        let units = 0;
        for (let j = i; j < admitted.length; j++) {
          units += admitted[j]!.cost;
          // units <= capacity + (limit / windowMs) * (t_j - t_i), multiplied through by windowMs.
          expect(units * windowMs).toBeLessThanOrEqual(
            capacity * windowMs + limit * (admitted[j]!.at - admitted[i]!.at),
          );
        }
      }
    });
  });

  it('fixed window: matches the oracle, never more than limit per aligned window', () => {
    matchesOracle('fixed-window', ({ limit, windowMs }, admitted) => {
      for (const { at } of admitted) expect(inWindowOf(admitted, at, windowMs)).toBeLessThanOrEqual(limit);
    });
  });

  it("sliding counter: matches Cloudflare's estimate (remaining = floor(limit - estimate)), never more than 2x limit in any (t - W, t]", () => {
    matchesOracle('sliding-counter', ({ limit, windowMs }, admitted) => {
      for (const { at } of admitted) expect(inWindow(admitted, at, windowMs)).toBeLessThanOrEqual(2 * limit);
    });
  });

  it('GCRA: matches the token bucket oracle', () => {
    matchesOracle('gcra', () => {});
  });
});

describe('GCRA makes the token bucket decisions', () => {
  it('on unit-cost traffic, every Decision field equal (ITU-T I.371 with tau = (burst - 1) * T)', () => {
    fc.assert(
      fc.property(policyArb, arrivalsArb({ cost: fc.constant(1), maxLength: 60 }), (policy, arrivals) => {
        expect(replay('gcra', policy, arrivals)).toEqual(replay('token-bucket', policy, arrivals));
      }),
      { numRuns: 3000 },
    );
  });

  it('on weighted traffic too: both keep the same fixed-point quantity', () => {
    fc.assert(
      fc.property(policyArb, arrivalsArb({ maxLength: 60 }), (policy, arrivals) => {
        expect(replay('gcra', policy, arrivals)).toEqual(replay('token-bucket', policy, arrivals));
      }),
      { numRuns: 3000 },
    );
  });
});
