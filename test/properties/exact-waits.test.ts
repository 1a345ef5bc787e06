import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import { arrivalsArb, policyArb, replay } from '../support/arbitraries.js';

/**
 * retryAfterMs and resetMs are exact for all five algorithms on whole-ms clocks, so each
 * is checked for every algorithm: the state of every algorithm moves only at whole ms
 * (token bucket and GCRA in fixed point scaled by windowMs / limit, the windows by
 * counting), so the first admitting ms exists and the rounding up lands on it. The claim
 * is "if nothing else arrives": the check replays the same history into a fresh limiter
 * (a clone) and asks again after the wait, or 1 ms before it.
 */
describe.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s', (algorithm) => {
  it('retryAfterMs is exact: after exactly that wait the same request is admitted, 1 ms sooner it is not', () => {
    fc.assert(
      fc.property(policyArb, arrivalsArb(), (policy, arrivals) => {
        const decisions = replay(algorithm, policy, arrivals);
        const denied = decisions.flatMap((d, i) => (!d.allowed && d.retryAfterMs !== Infinity ? [i] : [])).slice(-3);
        for (const i of denied) {
          const { at, cost, key } = arrivals[i]!;
          const wait = decisions[i]!.retryAfterMs;
          expect(wait).toBeGreaterThan(0);
          const history = arrivals.slice(0, i + 1);
          expect(replay(algorithm, policy, [...history, { at: at + wait, cost, key }]).at(-1)!.allowed).toBe(true);
          expect(replay(algorithm, policy, [...history, { at: at + wait - 1, cost, key }]).at(-1)!.allowed).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('resetMs is exact: after it the full capacity is admitted, 1 ms sooner it is not', () => {
    fc.assert(
      fc.property(policyArb, arrivalsArb(), (policy, arrivals) => {
        const decisions = replay(algorithm, policy, arrivals);
        const last = arrivals.at(-1)!;
        const { resetMs, limit: capacity } = decisions.at(-1)!;
        const after = replay(algorithm, policy, [...arrivals, { ...last, at: last.at + resetMs, cost: capacity }]).at(
          -1,
        )!;
        expect(after.allowed).toBe(true);
        if (resetMs > 0) {
          expect(
            replay(algorithm, policy, [...arrivals, { ...last, at: last.at + resetMs - 1, cost: capacity }]).at(-1)!
              .allowed,
          ).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });

  it('remaining is exact: that cost is admitted now, one more is not', () => {
    fc.assert(
      fc.property(policyArb, arrivalsArb(), (policy, arrivals) => {
        const { remaining } = replay(algorithm, policy, arrivals).at(-1)!;
        const last = arrivals.at(-1)!;
        expect(replay(algorithm, policy, [...arrivals, { ...last, cost: remaining }]).at(-1)!.allowed).toBe(true);
        expect(replay(algorithm, policy, [...arrivals, { ...last, cost: remaining + 1 }]).at(-1)!.allowed).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });
});
