import type { Scenario, SourceSpec } from '../scenario/scenario.js';
import type { Arrival, TrafficSource } from './arrival.js';
import { KeyIds } from './key-ids.js';
import { KeyPicker } from './keys.js';
import { Random } from './random.js';
import { BurstSource } from './sources/burst.js';
import { OnOffSource } from './sources/on-off.js';
import { PoissonSource } from './sources/poisson.js';
import { RetryClients } from './sources/retry-clients.js';
import { SteadySource } from './sources/steady.js';

/**
 * The arrivals of several sources merged by time (a k-way merge: each source is asked
 * only for its next arrival), cut at `endMs`. Ties go to the source listed first, so the
 * order is deterministic. Memory is that of the sources, never of the arrivals.
 *
 * Use: `for (let a = s.next(); a; a = s.next()) { decide; s.react(allowed, retryAfterMs) }`;
 * `react` is needed only for closed-loop sources and may be skipped otherwise.
 */
export class TrafficStream {
  private readonly times: Float64Array;
  private last = -1;
  private lastArrival: Arrival | undefined;

  constructor(
    private readonly sources: readonly TrafficSource[],
    private readonly endMs = Infinity,
  ) {
    this.times = Float64Array.from(sources, (source) => source.peek());
  }

  /** Whether any source reacts to decisions (then each algorithm sees its own arrivals). */
  get closedLoop(): boolean {
    return this.sources.some((source) => source.react !== undefined);
  }

  /** The next arrival in time order, or undefined when every source is done. */
  next(): Arrival | undefined {
    const times = this.times;
    if (this.last >= 0) times[this.last] = (this.sources[this.last] as TrafficSource).peek();
    let best = -1;
    let bestT = this.endMs;
    for (let i = 0; i < times.length; i++) {
      const t = times[i] as number;
      if (t < bestT) {
        bestT = t;
        best = i;
      }
    }
    this.last = best;
    if (best < 0) return (this.lastArrival = undefined);
    return (this.lastArrival = (this.sources[best] as TrafficSource).take());
  }

  /** Tells the source of the last arrival the decision on it (see {@link TrafficSource.react}). */
  react(allowed: boolean, retryAfterMs: number, retryAfterGiven = true): void {
    const source = this.sources[this.last];
    if (source?.react && this.lastArrival) source.react(this.lastArrival, allowed, retryAfterMs, retryAfterGiven);
  }
}

/** A fresh, deterministic stream of a scenario's arrivals: source i draws from stream i of the seed. */
export function openScenario(scenario: Scenario): TrafficStream {
  const ids = new KeyIds();
  const sources = scenario.sources.map((spec, i) => createSource(spec, new Random(scenario.seed, i), ids));
  return new TrafficStream(sources, scenario.durationMs);
}

/** The generator of one source spec; sources of one stream share `ids` (see {@link KeyIds}). */
export function createSource(spec: SourceSpec, random: Random, ids: KeyIds = new KeyIds()): TrafficSource {
  const keys = new KeyPicker(spec.keys, random, ids);
  switch (spec.kind) {
    case 'steady':
      return new SteadySource(spec, keys);
    case 'poisson':
      return new PoissonSource(spec, keys, random);
    case 'burst':
      return new BurstSource(spec, keys);
    case 'onoff':
      return new OnOffSource(spec, keys, random);
    case 'retry':
      return new RetryClients(spec, keys, random);
  }
}
