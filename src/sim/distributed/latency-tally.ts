import { percentilesOfCounts } from '../../metrics/percentile.js';

/** The latency a shared store added to decisions: the mean, and the 99th percentile from exact counts per value. */
export interface AddedLatency {
  /** Mean added latency per decision, ms (0 when there were none). */
  meanMs: number;
  /** 99th percentile (nearest rank, see `percentiles`), ms (0 when there were none). */
  p99Ms: number;
}

/**
 * Counts how long each decision waited on the network. The simulator's latencies take a
 * handful of values (0, the round trip, the timeout), so a count per distinct value is
 * exact and small.
 */
export class LatencyTally {
  private readonly counts = new Map<number, number>();
  private total = 0;
  private n = 0;

  add(ms: number): void {
    this.counts.set(ms, (this.counts.get(ms) ?? 0) + 1);
    this.total += ms;
    this.n += 1;
  }

  summary(): AddedLatency {
    if (this.n === 0) return { meanMs: 0, p99Ms: 0 };
    return { meanMs: this.total / this.n, p99Ms: percentilesOfCounts(this.counts, [0.99])[0] as number };
  }
}
