import type { BurstSourceSpec } from '../../scenario/scenario.js';
import type { Arrival, TrafficSource } from '../arrival.js';
import type { KeyPicker } from '../keys.js';

/** `count` arrivals at `atMs` (spread evenly over `spreadMs`), repeated `times` times, `everyMs` apart. */
export class BurstSource implements TrafficSource {
  private burst = 0;
  private i = 0;

  constructor(
    private readonly spec: BurstSourceSpec,
    private readonly keys: KeyPicker,
  ) {}

  peek(): number {
    if (this.burst >= this.spec.times) return Infinity;
    const { atMs, everyMs, spreadMs, count } = this.spec;
    return atMs + this.burst * everyMs + Math.floor((this.i * spreadMs) / count);
  }

  take(): Arrival {
    const key = this.keys.next();
    const arrival = { t: this.peek(), key, cost: this.spec.cost, id: this.keys.lastId, label: this.spec.label };
    this.i += 1;
    if (this.i === this.spec.count) {
      this.i = 0;
      this.burst += 1;
    }
    return arrival;
  }
}
