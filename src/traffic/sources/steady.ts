import type { RateSourceSpec } from '../../scenario/scenario.js';
import type { KeyPicker } from '../keys.js';
import { ScheduledSource } from './scheduled.js';

/** Evenly spaced arrivals: the i-th at `startMs + floor(i / ratePerMs)`, exact over any length. */
export class SteadySource extends ScheduledSource {
  private i = 0;

  constructor(
    private readonly spec: RateSourceSpec,
    keys: KeyPicker,
  ) {
    super(keys, spec.cost, spec.label);
    this.begin();
  }

  protected advance(): number {
    const t = this.spec.startMs + Math.floor(this.i / this.spec.ratePerMs);
    this.i += 1;
    return t < this.spec.endMs ? t : Infinity;
  }
}
