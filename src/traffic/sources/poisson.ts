import type { RateSourceSpec } from '../../scenario/scenario.js';
import type { Arrival, TrafficSource } from '../arrival.js';
import type { KeyPicker } from '../keys.js';
import type { Random } from '../random.js';

/** Poisson arrivals: exponential gaps of mean `1 / ratePerMs`, each time floored to whole ms. */
export class PoissonSource implements TrafficSource {
  private exact: number;
  private nextT: number;

  constructor(
    private readonly spec: RateSourceSpec,
    private readonly keys: KeyPicker,
    private readonly random: Random,
  ) {
    this.exact = spec.startMs;
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

  private advance(): number {
    this.exact += this.random.exponential(1 / this.spec.ratePerMs);
    const t = Math.floor(this.exact);
    return t < this.spec.endMs ? t : Infinity;
  }
}
