import type { RateSourceSpec } from '../../scenario/scenario.js';
import type { KeyPicker } from '../keys.js';
import type { Random } from '../random.js';
import { ScheduledSource } from './scheduled.js';

/** Poisson arrivals: exponential gaps of mean `1 / ratePerMs`, each time floored to whole ms. */
export class PoissonSource extends ScheduledSource {
  private exact: number;

  constructor(
    private readonly spec: RateSourceSpec,
    keys: KeyPicker,
    private readonly random: Random,
  ) {
    super(keys, spec.cost, spec.label);
    this.exact = spec.startMs;
    this.begin();
  }

  protected advance(): number {
    this.exact += this.random.exponential(1 / this.spec.ratePerMs);
    const t = Math.floor(this.exact);
    return t < this.spec.endMs ? t : Infinity;
  }
}
