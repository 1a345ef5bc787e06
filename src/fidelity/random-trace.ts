import { Random } from '../traffic/random.js';

/**
 * Arrival times (whole ms, non-decreasing) of one key under bursty load: gaps drawn from an
 * exponential with `meanGapMs`, and one arrival in 20 starts a burst of up to 40 in the
 * same millisecond, so both the bucket's capacity and its refill are exercised.
 */
export function burstyTimes(random: Random, count: number, meanGapMs: number): Float64Array {
  const times = new Float64Array(count);
  let t = 0;
  for (let i = 0; i < count;) {
    t += Math.floor(random.exponential(meanGapMs));
    const burst = random.uniform() < 0.05 ? 1 + random.below(40) : 1;
    for (let k = 0; k < burst && i < count; k++) times[i++] = t;
  }
  return times;
}
