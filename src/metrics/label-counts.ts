import { jainIndex } from './fairness.js';
import { percentilesOfCounts } from './percentile.js';

/** What one label's requests met, for one limiter. Requests are counted one per arrival. */
export interface LabelMetrics {
  label: string;
  /** Requests offered with this label. */
  offered: number;
  /** Of those, admitted by the limiter. */
  admitted: number;
  /** Denied, but the exact oracle would have admitted (legitimate requests wrongly denied). */
  falseDenials: number;
  /** Admitted, but the exact oracle would have denied (requests wrongly let through). */
  falseAdmits: number;
  /**
   * How long admitted requests waited from when their client first wanted them (through
   * 429s and retries, or a client-side throttle), ms, nearest-rank median and 99th
   * percentile: only for retry clients' labels (others do not know when they wanted).
   */
  wait?: { p50: number; p99: number };
  /**
   * Fairness between the label's clients: Jain's index over each client's admitted requests
   * (1 when every client got as many, down to 1/n when one got them all; a client that got
   * none counts as 0): only for labels whose arrivals name their client (retry clients), and
   * null for fewer than two clients.
   */
  fairness?: number | null;
}

/**
 * Per-label counts of a replay's lanes (limiters deciding on the same arrivals), in the
 * order labels first appear. Only labelled arrivals reach it, so a replay without labels
 * never pays for it.
 */
export class LabelCounts {
  private readonly index = new Map<string, number>();
  private readonly labels: string[] = [];
  private readonly offered: number[] = [];
  /** Per label, per lane: admitted, false denials, false admits at `(label * lanes + lane) * 3`. */
  private counts = new Float64Array(0);
  /** Per `label * lanes + lane`: admitted requests by their wait in ms (only labels whose arrivals say when they were wanted). */
  private readonly waits: Map<number, number>[] = [];
  /** Per `label * lanes + lane`: admitted requests by client (only labels whose arrivals name their client). */
  private readonly shares: Map<number, number>[] = [];

  constructor(private readonly lanes: number) {}

  /** The slot of `label`, added on first sight; counts one more request offered with it. */
  offer(label: string): number {
    let slot = this.index.get(label);
    if (slot === undefined) slot = this.add(label);
    this.offered[slot] = (this.offered[slot] as number) + 1;
    return slot;
  }

  /**
   * Counts lane `lane`'s decision on a request of label `slot`, given the exact oracle's
   * verdict, how long it waited (ms; -1: unknown) and its client (-1: unknown).
   */
  decide(slot: number, lane: number, allowed: boolean, exact: boolean, waitedMs = -1, client = -1): void {
    if (client >= 0) this.share(slot * this.lanes + lane, client, allowed);
    if (allowed && waitedMs >= 0) {
      const waits = (this.waits[slot * this.lanes + lane] ??= new Map());
      waits.set(waitedMs, (waits.get(waitedMs) ?? 0) + 1);
    }
    const at = (slot * this.lanes + lane) * 3;
    const counts = this.counts;
    if (allowed) counts[at] = (counts[at] as number) + 1;
    if (!allowed && exact) counts[at + 1] = (counts[at + 1] as number) + 1;
    if (allowed && !exact) counts[at + 2] = (counts[at + 2] as number) + 1;
  }

  /** Every label's counts for lane `lane`, in the order the labels were first seen. */
  result(lane: number): LabelMetrics[] {
    return this.labels.map((label, slot) => {
      const at = (slot * this.lanes + lane) * 3;
      const metrics: LabelMetrics = {
        label,
        offered: this.offered[slot] as number,
        admitted: this.counts[at] as number,
        falseDenials: this.counts[at + 1] as number,
        falseAdmits: this.counts[at + 2] as number,
      };
      const waits = this.waits[slot * this.lanes + lane];
      if (waits !== undefined) {
        const [p50, p99] = percentilesOfCounts(waits, [0.5, 0.99]) as [number, number];
        metrics.wait = { p50, p99 };
      }
      const shares = this.shares[slot * this.lanes + lane];
      if (shares !== undefined) metrics.fairness = jainIndex(shares.values());
      return metrics;
    });
  }

  /** One more request of `client` decided in `at` (label and lane): its share grows when admitted, and a client denied every time still has one (of 0). */
  private share(at: number, client: number, allowed: boolean): void {
    const shares = (this.shares[at] ??= new Map());
    shares.set(client, (shares.get(client) ?? 0) + (allowed ? 1 : 0));
  }

  private add(label: string): number {
    const slot = this.labels.length;
    this.index.set(label, slot);
    this.labels.push(label);
    this.offered.push(0);
    const grown = new Float64Array((slot + 1) * this.lanes * 3);
    grown.set(this.counts);
    this.counts = grown;
    return slot;
  }
}
