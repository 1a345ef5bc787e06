import type { RateSourceSpec } from '../../scenario/scenario.js';
import type { KeyPicker } from '../keys.js';
import type { Random } from '../random.js';
import { ScheduledSource } from './scheduled.js';

/** What a Poisson process needs of its source's spec: a rate (requests per ms) over [startMs, endMs). */
type PoissonSpec = Pick<RateSourceSpec, 'startMs' | 'endMs' | 'ratePerMs' | 'cost' | 'label'>;

/**
 * Arrivals of a Poisson process at `spec.ratePerMs`: exponential gaps of mean
 * `1 / ratePerMs` added to an exact clock (`exact`, never floored) that starts at
 * `startMs`. Subclasses say which arrivals are sent, and call `begin()` at the end of their
 * constructor, as every ScheduledSource does.
 */
export abstract class PoissonArrivals<S extends PoissonSpec> extends ScheduledSource {
  /** The exact time of the arrival last drawn, ms. */
  protected exact: number;

  constructor(
    protected readonly spec: S,
    keys: KeyPicker,
    protected readonly random: Random,
  ) {
    super(keys, spec.cost, spec.label);
    this.exact = spec.startMs;
  }

  /** One gap of the process, ms: exponential with mean `1 / ratePerMs` (one draw). */
  protected gapMs(): number {
    return this.random.exponential(1 / this.spec.ratePerMs);
  }
}

/** Poisson arrivals: exponential gaps of mean `1 / ratePerMs`, each time floored to whole ms. */
export class PoissonSource extends PoissonArrivals<RateSourceSpec> {
  constructor(spec: RateSourceSpec, keys: KeyPicker, random: Random) {
    super(spec, keys, random);
    this.begin();
  }

  protected advance(): number {
    this.exact += this.gapMs();
    const t = Math.floor(this.exact);
    return t < this.spec.endMs ? t : Infinity;
  }
}
