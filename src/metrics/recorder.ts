import { jainIndex } from './fairness.js';
import { oracleAdmits } from './oracle.js';
import { TimelineCounter, type Timeline } from './timeline.js';
import { WindowLedger } from './window-ledger.js';

/** What one replay measured. Requests are counted one per arrival, whatever its cost. */
export interface ReplayMetrics {
  /** Requests offered (arrivals). */
  offered: number;
  /** Requests the limiter admitted. */
  admitted: number;
  /** Requests the limiter denied: `offered - admitted`. */
  denied: number;
  /** Admitted, but the exact oracle would have denied. */
  falseAdmits: number;
  /** Denied, but the exact oracle would have admitted. */
  falseDenials: number;
  /** `(falseAdmits + falseDenials) / offered`, in percent (0 when nothing was offered). */
  errorRate: number;
  /**
   * The most units admitted for one key in any window `(t - windowMs, t]`, divided by the
   * limit; the maximum over keys. At most 1.0 for an exact limiter.
   */
  worstWindowRatio: number;
  /** Where the worst window was: its key, its end time (ms) and the units it held. */
  worstWindow: { key: string; endMs: number; units: number } | null;
  /** Jain's index over each key's admitted / offered; null with fewer than two keys. */
  fairness: number | null;
  /** Distinct keys seen. */
  keys: number;
  /** Offered and admitted units per bucket. */
  timeline: Timeline;
}

/** What the recorder needs to know: the policy's limit and window, and the timeline's buckets. */
export interface RecorderOptions {
  limit: number;
  windowMs: number;
  bucketMs: number;
  /** Start of the timeline (default: the first arrival's time). */
  originMs?: number;
  /** Pad the timeline to at least this many buckets (a scenario's full duration). */
  minBuckets?: number;
}

/**
 * Computes every metric of a replay in one pass, one call per decision: the exact
 * oracle's verdict on the same arrival, the sliding window of what was admitted per key,
 * and the timeline. Memory is O(keys + arrivals within one window), never O(arrivals).
 */
export class MetricsRecorder {
  private readonly ledger = new WindowLedger();
  private timeline: TimelineCounter | undefined;
  private offered = 0;
  private admitted = 0;
  private falseAdmits = 0;
  private falseDenials = 0;
  private worstUnits = 0;
  private worstWindow: ReplayMetrics['worstWindow'] = null;

  constructor(private readonly options: RecorderOptions) {
    if (options.originMs !== undefined) this.timeline = new TimelineCounter(options.originMs, options.bucketMs);
  }

  /**
   * Records the limiter's decision on `cost` units for `key` at `t` (times in
   * non-decreasing order). `id` is the stream's number for the key, when it has one.
   */
  record(t: number, key: string, cost: number, allowed: boolean, id?: number): void {
    const ledger = this.ledger;
    const slot = ledger.slot(key, id);
    ledger.expire(t - this.options.windowMs);
    const exact = oracleAdmits(ledger, slot, cost, this.options.limit);
    ledger.add(slot, t, exact ? cost : 0, allowed ? cost : 0);
    ledger.offered[slot] = (ledger.offered[slot] as number) + 1;
    this.offered += 1;
    if (allowed) {
      ledger.admitted[slot] = (ledger.admitted[slot] as number) + 1;
      this.admitted += 1;
      if (!exact) this.falseAdmits += 1;
      const kept = ledger.keptSum[slot] as number;
      if (kept > this.worstUnits) {
        this.worstUnits = kept;
        this.worstWindow = { key, endMs: t, units: kept };
      }
    } else if (exact) {
      this.falseDenials += 1;
    }
    (this.timeline ??= new TimelineCounter(t, this.options.bucketMs)).add(t, cost, allowed);
  }

  /** The metrics of everything recorded so far. */
  result(): ReplayMetrics {
    const { offered, admitted, falseAdmits, falseDenials } = this;
    const timeline = this.timeline ?? new TimelineCounter(this.options.originMs ?? 0, this.options.bucketMs);
    return {
      offered,
      admitted,
      denied: offered - admitted,
      falseAdmits,
      falseDenials,
      errorRate: offered === 0 ? 0 : ((falseAdmits + falseDenials) / offered) * 100,
      worstWindowRatio: this.worstUnits / this.options.limit,
      worstWindow: this.worstWindow,
      fairness: jainIndex(this.shares()),
      keys: this.ledger.keys.length,
      timeline: timeline.result(this.options.minBuckets ?? 0),
    };
  }

  private *shares(): Iterable<number> {
    const { offered, admitted, keys } = this.ledger;
    for (let slot = 0; slot < keys.length; slot++) yield (admitted[slot] as number) / (offered[slot] as number);
  }
}
