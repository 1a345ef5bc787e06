import type { RateSourceSpec } from '../../scenario/scenario.js';
import type { Arrival, TrafficSource } from '../arrival.js';
import type { KeyPicker } from '../keys.js';

/** Evenly spaced arrivals: the i-th at `startMs + floor(i / ratePerMs)`, exact over any length. */
export class SteadySource implements TrafficSource {
  private i = 0;
  private nextT: number;

  constructor(
    private readonly spec: RateSourceSpec,
    private readonly keys: KeyPicker,
  ) {
    this.nextT = this.timeOf(0);
  }

  peek(): number {
    return this.nextT;
  }

  take(): Arrival {
    const arrival = { t: this.nextT, key: this.keys.next(), cost: this.spec.cost };
    this.i += 1;
    this.nextT = this.timeOf(this.i);
    return arrival;
  }

  private timeOf(i: number): number {
    const t = this.spec.startMs + Math.floor(i / this.spec.ratePerMs);
    return t < this.spec.endMs ? t : Infinity;
  }
}
