import { ManualClock } from '../core/clock.js';
import { createLimiter } from '../memory/limiter.js';
import { Random } from '../traffic/random.js';
import { judged, type FidelityCheck } from './case.js';
import { burstyTimes } from './random-trace.js';

const LIMIT = 50;
const WINDOW_MS = 1000;
const BURST = 20;
const ARRIVALS = 200_000;

/**
 * The most `admitted` exceeds the token bucket bound over any interval `[t_i, t_j]` of
 * admitted times, in units of 1/windowMs (integers, so exact): the largest
 * `count(i..j) * W - limit * (t_j - t_i)`, which the bound says is at most `b * W`.
 * With admitted times a_1 <= ... <= a_m, count(i..j) = j - i + 1, so the figure is
 * max over j of `(j*W - limit*a_j) - min over i <= j of (i*W - limit*a_i) + W`: one pass,
 * O(m), where every pair of intervals would be O(m^2).
 */
export function largestExcess(admitted: ArrayLike<number>, limit: number, windowMs: number): number {
  let lowest = Infinity;
  let largest = -Infinity;
  for (let j = 0; j < admitted.length; j++) {
    const value = j * windowMs - limit * (admitted[j] as number);
    if (value < lowest) lowest = value;
    largest = Math.max(largest, value - lowest + windowMs);
  }
  return largest;
}

/** Claim 4 (Linux sch_tbf.c): in any interval a token bucket admits at most `b + r * (t_f - t_i)`. */
export const bucketBoundCheck: FidelityCheck = {
  name: 'token-bucket',
  async run({ seed }) {
    const times = burstyTimes(new Random(seed, 4), ARRIVALS, 15);
    const clock = new ManualClock(0);
    const limiter = createLimiter('token-bucket', { limit: LIMIT, windowMs: WINDOW_MS, burst: BURST }, { clock });
    const admitted: number[] = [];
    for (const t of times) {
      clock.set(t);
      if (limiter.allow('k')) admitted.push(t);
    }
    const excess = largestExcess(admitted, LIMIT, WINDOW_MS) / WINDOW_MS;
    return [
      judged(
        {
          id: 'token-bucket/bound',
          claim: 'A token bucket never admits more than b + r*(t_f - t_i) in any interval',
          source: 'Linux net/sched/sch_tbf.c',
          scenario: `random bursty trace, ${ARRIVALS.toLocaleString('en-US')} arrivals on one key, r = ${LIMIT}/s, b = ${BURST}, every interval checked`,
          expected: `at most b = ${BURST} above r*dt`,
          measured: `at most ${excess} above r*dt (${admitted.length.toLocaleString('en-US')} admitted)`,
          details: {
            arrivals: ARRIVALS,
            admitted: admitted.length,
            largestExcess: excess,
            rate: `${LIMIT}/${WINDOW_MS}ms`,
            burst: BURST,
          },
        },
        excess <= BURST,
      ),
    ];
  },
};
