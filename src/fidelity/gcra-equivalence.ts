import { ManualClock } from '../core/clock.js';
import { createLimiter } from '../memory/limiter.js';
import type { Policy } from '../core/policy.js';
import { Random } from '../traffic/random.js';
import { judged, type FidelityCheck } from './case.js';
import { burstyTimes } from './random-trace.js';

const TRACES = 300;
const ARRIVALS = 2_000;

/** Decides unit requests of one key at whole-ms times that never go back. */
export type UnitDecider = (t: number) => boolean;
/** Builds a fresh decider for a policy (token bucket: rate limit/windowMs, capacity burst, starting full). */
export type DeciderFactory = (policy: Required<Policy>) => UnitDecider;

/**
 * GCRA as ITU-T I.371 states it, with times scaled by `limit` so every figure is a whole
 * number: emission interval T = windowMs (1/r scaled), tolerance `tolerance(T, b)`; a unit
 * arriving at t conforms when TAT - t <= tau, and then TAT = max(TAT, t) + T.
 */
export function textbookGcra(tolerance: (interval: number, burst: number) => number): DeciderFactory {
  return ({ limit, windowMs, burst }) => {
    const interval = windowMs;
    const tau = tolerance(interval, burst);
    let tat = -Infinity;
    return (t) => {
      const now = t * limit;
      const next = Math.max(tat, now);
      if (next - now > tau) return false;
      tat = next + interval;
      return true;
    };
  };
}

/** tau = (b - 1) * T: the standard's tolerance. */
export const standardTolerance = (interval: number, burst: number): number => (burst - 1) * interval;
/** tau = b * T: the tolerance a GCRA in the wild used (one unit too many after idle). */
export const wildTolerance = (interval: number, burst: number): number => burst * interval;

/** The lab's own limiter of `algorithm` as a decider, on a virtual clock. */
export function labDecider(algorithm: 'gcra' | 'token-bucket'): DeciderFactory {
  return (policy) => {
    const clock = new ManualClock(0);
    const limiter = createLimiter(algorithm, policy, { clock });
    return (t) => {
      clock.set(t);
      return limiter.allow('k');
    };
  };
}

/** Decisions that differ between `candidate` and the lab's token bucket over the suite's random traces. */
export function mismatches(seed: number, candidate: DeciderFactory): { decisions: number; mismatches: number } {
  const random = new Random(seed, 5);
  let decisions = 0;
  let differ = 0;
  for (let trace = 0; trace < TRACES; trace++) {
    const limit = 1 + random.below(100);
    const policy = { limit, windowMs: 1 + random.below(5_000), burst: 1 + random.below(2 * limit) };
    const times = burstyTimes(random, ARRIVALS, policy.windowMs / limit);
    const bucket = labDecider('token-bucket')(policy);
    const other = candidate(policy);
    for (const t of times) if (bucket(t) !== other(t)) differ++;
    decisions += times.length;
  }
  return { decisions, mismatches: differ };
}

/**
 * Claim 5 (ITU-T I.371): GCRA with T = 1/r and tau = (b - 1) * T decides exactly as the
 * token bucket of rate r and capacity b starting full, on unit costs. Checked for the
 * lab's GCRA and for the standard's formula written out; the wild tolerance `b * T` is
 * measured beside them to show the check can fail. `candidate` replaces the lab's GCRA
 * (a test passes a broken one).
 */
export function gcraCheck(candidate: DeciderFactory = labDecider('gcra')): FidelityCheck {
  return {
    name: 'gcra',
    async run({ seed }) {
      const lab = mismatches(seed, candidate);
      const standard = mismatches(seed, textbookGcra(standardTolerance));
      const wild = mismatches(seed, textbookGcra(wildTolerance));
      return [
        judged(
          {
            id: 'gcra/token-bucket',
            claim:
              'GCRA with T = 1/r, tau = (b-1)*T decides exactly as the token bucket (rate r, capacity b, starting full)',
            source: "ITU-T I.371 (GCRA); the lab's token bucket as reference",
            scenario: `${TRACES} random bursty traces x ${ARRIVALS.toLocaleString('en-US')} unit requests, random r and b`,
            expected: '0 mismatches',
            measured: `${lab.mismatches} mismatches in ${lab.decisions.toLocaleString('en-US')} (I.371 formula: ${standard.mismatches}; tau = b*T: ${wild.mismatches})`,
            details: {
              decisions: lab.decisions,
              mismatches: lab.mismatches,
              standardFormulaMismatches: standard.mismatches,
              wildToleranceMismatches: wild.mismatches,
            },
          },
          lab.mismatches === 0 && standard.mismatches === 0,
        ),
      ];
    },
  };
}
