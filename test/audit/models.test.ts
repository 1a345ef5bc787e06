import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { agreements, replay, type Hypothesis } from '../../src/audit/models.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLimiter, type Algorithm } from '../../src/index.js';

interface Step {
  t: number;
  admitted: boolean;
  why: string;
}

const steps = (h: Hypothesis, table: Step[]) => ({ h, table });

/** Each family's textbook decisions, hand-worked. */
const TABLES = [
  steps({ family: 'fixed-window', alignment: 'epoch', limit: 2, windowMs: 1000 }, [
    { t: 900, admitted: true, why: 'window [0, 1000): 1 of 2' },
    { t: 950, admitted: true, why: '2 of 2' },
    { t: 999, admitted: false, why: 'full until 1000' },
    { t: 1000, admitted: true, why: 'a new epoch window' },
    { t: 1001, admitted: true, why: '2 of 2 again: 4 within 101 ms, the edge burst' },
  ]),
  steps({ family: 'fixed-window', alignment: 'first-request', limit: 2, windowMs: 1000 }, [
    { t: 900, admitted: true, why: 'opens [900, 1900)' },
    { t: 950, admitted: true, why: '2 of 2' },
    { t: 1000, admitted: false, why: 'no epoch reset: the window is the client’s own' },
    { t: 1900, admitted: true, why: 'the window closed at 1900: a new one opens' },
  ]),
  steps({ family: 'sliding-log', limit: 2, windowMs: 1000, deniedCount: false }, [
    { t: 0, admitted: true, why: '1 in (-1000, 0]' },
    { t: 500, admitted: true, why: '2 in the last second' },
    { t: 999, admitted: false, why: 'both still within (−1, 999]' },
    { t: 1000, admitted: true, why: 'the request at 0 left the window' },
    { t: 1001, admitted: false, why: '500 and 1000 are within (1, 1001]' },
  ]),
  steps({ family: 'sliding-log', limit: 2, windowMs: 1000, deniedCount: true }, [
    { t: 0, admitted: true, why: 'logged' },
    { t: 100, admitted: true, why: 'logged: 2 of 2' },
    { t: 800, admitted: false, why: 'denied, and logged all the same' },
    {
      t: 1050,
      admitted: false,
      why: '100 and the denied 800 are in (50, 1050]: a log of admissions alone would admit',
    },
    { t: 2051, admitted: true, why: 'the denied 1050 has left too' },
  ]),
  steps({ family: 'sliding-counter', limit: 10, windowMs: 1000 }, [
    ...Array.from({ length: 10 }, (_, i) => ({ t: 500 + i, admitted: true, why: `${i + 1} of 10 in [0, 1000)` })),
    { t: 1000, admitted: false, why: 'estimate 10 x (1000 - 0)/1000 + 0 = 10: full' },
    { t: 1250, admitted: true, why: 'estimate 10 x 0.75 = 7.5, +1 fits' },
    { t: 1251, admitted: true, why: '7.49 + 1 + 1 fits' },
    { t: 1252, admitted: false, why: '7.48 + 2 + 1 > 10' },
  ]),
  steps({ family: 'token-bucket', burst: 2, ratePerSec: 10, deniedCount: false }, [
    { t: 0, admitted: true, why: 'full bucket of 2' },
    { t: 0, admitted: true, why: 'the second token' },
    { t: 50, admitted: false, why: 'half a token back' },
    { t: 100, admitted: true, why: 'one token back at 100 ms' },
    { t: 400, admitted: true, why: 'refilled to 2, one taken' },
    { t: 400, admitted: true, why: 'the other' },
  ]),
  steps({ family: 'token-bucket', burst: 1, ratePerSec: 10, deniedCount: true }, [
    { t: 0, admitted: true, why: 'full bucket of 1' },
    { t: 50, admitted: false, why: 'half a token: denied, and the denial takes one (-0.5)' },
    { t: 100, admitted: false, why: 'refilled to 0 only: knocking keeps it empty (-1 after this one)' },
    { t: 300, admitted: true, why: 'two knocks cost two tokens: one is back only 200 ms after the last' },
  ]),
] satisfies { h: Hypothesis; table: Step[] }[];

describe('the audit models decide as each family is defined', () => {
  for (const { h, table } of TABLES) {
    it(JSON.stringify(h), () => {
      const decided = replay(
        h,
        table.map((s) => s.t),
      );
      expect(decided.map((admitted, i) => ({ ...table[i], admitted }))).toEqual(table);
    });
  }
});

describe('scoring judges each decision on the endpoint’s own history', () => {
  const bucket: Hypothesis = { family: 'token-bucket', burst: 1, ratePerSec: 10, deniedCount: false };
  it('an admission agrees when the model admits by the end of the request’s flight', () => {
    // Sent at 95 (half a millisecond early for the token at 100), answered at 101.
    expect(agreements(bucket, [decided(0, 1, true), decided(95, 101, true)])).toEqual([true, true]);
  });
  it('a denial agrees when the model denies at the start of its flight', () => {
    expect(agreements(bucket, [decided(0, 1, true), decided(99, 101, false)])).toEqual([true, true]);
  });
  it('a miss does not carry into the next decision: the endpoint’s own outcome is committed', () => {
    // The endpoint admitted at 50 (the model would not): from that state (-0.5) the model admits again at 200.
    expect(agreements(bucket, [decided(0, 1, true), decided(50, 51, true), decided(200, 201, true)])).toEqual([
      true,
      false,
      true,
    ]);
  });
});

function decided(earliest: number, latest: number, admitted: boolean) {
  return { earliest, latest, at: (earliest + latest) / 2, admitted };
}

/** ratelab's own algorithm for each model the audit fits (GCRA decides as the token bucket). */
const OWN: { algorithm: Algorithm; model: (limit: number, windowMs: number) => Hypothesis }[] = [
  {
    algorithm: 'fixed-window',
    model: (limit, windowMs) => ({ family: 'fixed-window', alignment: 'epoch', limit, windowMs }),
  },
  {
    algorithm: 'sliding-log',
    model: (limit, windowMs) => ({ family: 'sliding-log', limit, windowMs, deniedCount: false }),
  },
  {
    algorithm: 'sliding-counter',
    model: (limit, windowMs) => ({ family: 'sliding-counter', limit, windowMs }),
  },
  {
    algorithm: 'token-bucket',
    model: (limit, windowMs) => ({
      family: 'token-bucket',
      burst: limit,
      ratePerSec: (1000 * limit) / windowMs,
      deniedCount: false,
    }),
  },
  {
    algorithm: 'gcra',
    model: (limit, windowMs) => ({
      family: 'token-bucket',
      burst: limit,
      ratePerSec: (1000 * limit) / windowMs,
      deniedCount: false,
    }),
  },
];

describe('law: each model decides as ratelab’s own algorithm on any arrivals', () => {
  for (const { algorithm, model } of OWN) {
    it(algorithm, () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 8 }),
          fc.constantFrom(100, 250, 1000),
          fc.array(fc.integer({ min: 0, max: 400 }), { minLength: 1, maxLength: 60 }),
          (limit, windowMs, gaps) => {
            const clock = new ManualClock(0);
            const limiter = createLimiter(algorithm, { limit, windowMs }, { clock });
            const times: number[] = [];
            const own = gaps.map((gap) => {
              clock.advance(gap);
              times.push(clock.now());
              return limiter.consume('k').allowed;
            });
            expect(replay(model(limit, windowMs), times)).toEqual(own);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});
