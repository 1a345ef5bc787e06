import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

const WARM_UP = 32;

/**
 * A seeded source of random numbers (pure-rand's xoroshiro128+). Stream `n` of a seed is
 * the generator jumped `n` times (2^64 steps each), so every traffic source of a scenario
 * draws from its own sequence and adding a source never changes the others' arrivals.
 */
export class Random {
  private readonly rng: RandomGenerator;

  /**
   * @param seed a 32-bit seed.
   * @param stream which independent sequence of that seed.
   */
  constructor(seed: number, stream = 0) {
    const rng = xoroshiro128plus(seed | 0);
    for (let i = 0; i < stream; i++) rng.jump();
    // A 32-bit seed fills the 128-bit state sparsely and the first outputs stay close to
    // it (seed 1 starts with a uniform of 0.99999...): run the generator in first.
    for (let i = 0; i < WARM_UP; i++) rng.next();
    this.rng = rng;
  }

  /** Uniform in [0, 1), 53 bits. */
  uniform(): number {
    return uniformFloat64(this.rng);
  }

  /** A whole number uniform in [0, n). */
  below(n: number): number {
    return Math.floor(this.uniform() * n);
  }

  /** Exponentially distributed with the given mean (inter-arrival times of a Poisson process). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.uniform());
  }

  /** Pareto distributed: `min * U^(-1/alpha)`, so at least `min`; infinite variance for alpha < 2. */
  pareto(alpha: number, min: number): number {
    return min * Math.pow(1 - this.uniform(), -1 / alpha);
  }
}
