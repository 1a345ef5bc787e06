import type { OnOffSourceSpec } from '../../scenario/scenario.js';
import type { KeyPicker } from '../keys.js';
import type { Random } from '../random.js';
import { PoissonArrivals } from './poisson.js';

/**
 * On/off traffic: on and off periods of Pareto lengths (heavy-tailed for alpha < 2, the
 * model of Crovella & Bestavros for self-similar web traffic), Poisson arrivals while on.
 * Starts with an on period at `startMs`.
 */
export class OnOffSource extends PoissonArrivals<OnOffSourceSpec> {
  private onUntil: number;

  constructor(spec: OnOffSourceSpec, keys: KeyPicker, random: Random) {
    super(spec, keys, random);
    this.onUntil = spec.startMs + random.pareto(spec.on.alpha, spec.on.minMs);
    this.begin();
  }

  /** The next arrival; a gap that runs past the on period skips an off period (Poisson gaps are memoryless). */
  protected advance(): number {
    const { spec, random } = this;
    let next = this.exact + this.gapMs();
    while (next >= this.onUntil && this.onUntil < spec.endMs) {
      const onAgain = this.onUntil + random.pareto(spec.off.alpha, spec.off.minMs);
      this.onUntil = onAgain + random.pareto(spec.on.alpha, spec.on.minMs);
      next = onAgain + this.gapMs();
    }
    this.exact = next;
    const t = Math.floor(next);
    return t < spec.endMs && next < this.onUntil ? t : Infinity;
  }
}
