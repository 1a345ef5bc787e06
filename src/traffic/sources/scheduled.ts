import type { Arrival, TrafficSource } from '../arrival.js';
import type { KeyPicker } from '../keys.js';

/**
 * An open-loop source whose arrival times come one at a time from `advance()` (Infinity
 * when done); keys, cost and label are the same for every kind. Subclasses call `begin()` at the
 * end of their constructor, once their own state is set.
 */
export abstract class ScheduledSource implements TrafficSource {
  private nextT = Infinity;

  constructor(
    private readonly keys: KeyPicker,
    private readonly cost: number,
    private readonly label?: string,
  ) {}

  peek(): number {
    return this.nextT;
  }

  take(): Arrival {
    const key = this.keys.next();
    const arrival = { t: this.nextT, key, cost: this.cost, id: this.keys.lastId, label: this.label };
    this.nextT = this.advance();
    return arrival;
  }

  protected begin(): void {
    this.nextT = this.advance();
  }

  /** The time of the arrival after the one just scheduled (whole ms), or Infinity. */
  protected abstract advance(): number;
}
