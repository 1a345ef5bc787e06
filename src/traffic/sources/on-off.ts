import type { OnOffSourceSpec } from '../../scenario/scenario.js';
import type { Arrival, TrafficSource } from '../arrival.js';
import type { KeyPicker } from '../keys.js';
import type { Random } from '../random.js';

/**
 * On/off traffic: on and off periods of Pareto lengths (heavy-tailed for alpha < 2, the
 * model of Crovella & Bestavros for self-similar web traffic), Poisson arrivals while on.
 * Starts with an on period at `startMs`.
 */
export class OnOffSource implements TrafficSource {
  private exact: number;
  private onUntil: number;
  private nextT: number;

  constructor(
    private readonly spec: OnOffSourceSpec,
    private readonly keys: KeyPicker,
    private readonly random: Random,
  ) {
    this.exact = spec.startMs;
    this.onUntil = spec.startMs + random.pareto(spec.on.alpha, spec.on.minMs);
    this.nextT = this.advance();
  }

  peek(): number {
    return this.nextT;
  }

  take(): Arrival {
    const arrival = { t: this.nextT, key: this.keys.next(), cost: this.spec.cost };
    this.nextT = this.advance();
    return arrival;
  }

  /** The next arrival; a gap that runs past the on period skips an off period (Poisson gaps are memoryless). */
  private advance(): number {
    const { spec, random } = this;
    let next = this.exact + random.exponential(1 / spec.ratePerMs);
    while (next >= this.onUntil && this.onUntil < spec.endMs) {
      const onAgain = this.onUntil + random.pareto(spec.off.alpha, spec.off.minMs);
      this.onUntil = onAgain + random.pareto(spec.on.alpha, spec.on.minMs);
      next = onAgain + random.exponential(1 / spec.ratePerMs);
    }
    this.exact = next;
    const t = Math.floor(next);
    return t < spec.endMs && next < this.onUntil ? t : Infinity;
  }
}
