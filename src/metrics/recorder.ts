import { jainIndex } from './fairness.js';
import { LabelCounts, type LabelMetrics } from './label-counts.js';
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
  /** Per source label, in the order first seen; empty when no arrival had a label. */
  labels: LabelMetrics[];
}

/** What the recorder needs to know: the policy's limit and window, and the timeline's buckets. */
export interface RecorderOptions {
  limit: number;
  windowMs: number;
  bucketMs: number;
  /** Start of the timeline (default: the first arrival's time). */
  originMs?: number;
  /**
   * Pad the timeline to cover at least this many buckets of `bucketMs` (a scenario's full
   * duration); it holds at most MAX_TIMELINE_BUCKETS buckets, wider ones when needed.
   */
  minBuckets?: number;
}

/**
 * Computes every metric of a replay in one pass, one call per decision: the exact
 * oracle's verdict on the same arrival, the sliding window of what was admitted per key,
 * and the timeline. Memory is O(keys + arrivals within one window), never O(arrivals).
 *
 * With `lanes` > 1 it measures that many limiters deciding on the same arrivals (a
 * lockstep replay): per arrival, {@link offer} once (the oracle's verdict), {@link decide}
 * per lane, then {@link commit}; {@link result} per lane. Each lane's metrics are exactly
 * what a recorder of its own would give.
 */
export class MetricsRecorder {
  private readonly ledger: WindowLedger;
  private readonly timelines: (TimelineCounter | undefined)[];
  private offered = 0;
  private readonly admitted: Float64Array;
  private readonly falseAdmits: Float64Array;
  private readonly falseDenials: Float64Array;
  private readonly worstUnits: Float64Array;
  private readonly worstWindows: ReplayMetrics['worstWindow'][];
  /** The arrival being decided, between offer and commit. */
  private readonly verdicts: Uint8Array;
  private slot = 0;
  private t = 0;
  private key = '';
  private cost = 0;
  private exact = false;
  /** Per-label counts, made on the first labelled arrival; the label slot of the arrival being decided, or -1. */
  private labels: LabelCounts | undefined;
  private labelSlot = -1;
  /** How long the arrival being decided had waited since first wanted, ms; -1 when unknown. */
  private waited = -1;

  constructor(
    private readonly options: RecorderOptions,
    readonly lanes = 1,
  ) {
    this.ledger = new WindowLedger(lanes);
    this.timelines = Array.from({ length: lanes }, () =>
      options.originMs === undefined ? undefined : new TimelineCounter(options.originMs, options.bucketMs),
    );
    this.admitted = new Float64Array(lanes);
    this.falseAdmits = new Float64Array(lanes);
    this.falseDenials = new Float64Array(lanes);
    this.worstUnits = new Float64Array(lanes);
    this.worstWindows = new Array<ReplayMetrics['worstWindow']>(lanes).fill(null);
    this.verdicts = new Uint8Array(lanes);
  }

  /**
   * Records the (one-lane) limiter's decision on `cost` units for `key` at `t` (times in
   * non-decreasing order). `id` is the stream's number for the key, when it has one.
   */
  record(t: number, key: string, cost: number, allowed: boolean, id?: number, label?: string): void {
    this.offer(t, key, cost, id, label);
    this.decide(0, allowed);
    this.commit();
  }

  /**
   * Starts recording an arrival of `cost` units for `key` at `t` (times in non-decreasing
   * order; `id` as in {@link record}; `label` its source's label, if any; `since` when its
   * client first wanted it, for the label's waits); returns the exact oracle's verdict on it.
   */
  offer(t: number, key: string, cost: number, id?: number, label?: string, since?: number): boolean {
    const ledger = this.ledger;
    const slot = ledger.slot(key, id);
    ledger.expire(t - this.options.windowMs);
    this.slot = slot;
    this.t = t;
    this.key = key;
    this.cost = cost;
    this.exact = oracleAdmits(ledger, slot, cost, this.options.limit);
    this.labelSlot = label === undefined ? -1 : (this.labels ??= new LabelCounts(this.lanes)).offer(label);
    this.waited = since === undefined ? -1 : t - since;
    return this.exact;
  }

  /** The decision of the limiter of `lane` on the arrival offered last. */
  decide(lane: number, allowed: boolean): void {
    this.verdicts[lane] = allowed ? 1 : 0;
  }

  /** Counts the arrival offered last with every lane's decision. */
  commit(): void {
    const { ledger, slot, t, cost, exact, lanes, verdicts } = this;
    let any = exact;
    for (let lane = 0; lane < lanes && !any; lane++) any = verdicts[lane] === 1;
    const entry = any ? ledger.append(slot, t, exact ? cost : 0) : -1;
    ledger.offered[slot] = (ledger.offered[slot] as number) + 1;
    this.offered += 1;
    for (let lane = 0; lane < lanes; lane++) {
      const allowed = verdicts[lane] === 1;
      if (allowed) this.count(entry, lane);
      else if (exact) this.falseDenials[lane] = (this.falseDenials[lane] as number) + 1;
      (this.timelines[lane] ??= new TimelineCounter(t, this.options.bucketMs)).add(t, cost, allowed);
    }
    if (this.labelSlot >= 0) this.countLabel();
  }

  /** Counts every lane's decision on the arrival offered last under its label. */
  private countLabel(): void {
    const { labels, labelSlot, exact, lanes, verdicts } = this;
    for (let lane = 0; lane < lanes; lane++) labels?.decide(labelSlot, lane, verdicts[lane] === 1, exact, this.waited);
  }

  /** Counts an admission by the limiter of `lane` into the window and the worst window. */
  private count(entry: number, lane: number): void {
    const { ledger, slot, lanes } = this;
    ledger.keep(entry, slot, lane, this.cost);
    ledger.admitted[slot * lanes + lane] = (ledger.admitted[slot * lanes + lane] as number) + 1;
    this.admitted[lane] = (this.admitted[lane] as number) + 1;
    if (!this.exact) this.falseAdmits[lane] = (this.falseAdmits[lane] as number) + 1;
    const kept = ledger.keptSum[slot * lanes + lane] as number;
    if (kept > (this.worstUnits[lane] as number)) {
      this.worstUnits[lane] = kept;
      this.worstWindows[lane] = { key: this.key, endMs: this.t, units: kept };
    }
  }

  /** The metrics of everything recorded so far, for the limiter of `lane`. */
  result(lane = 0): ReplayMetrics {
    const offered = this.offered;
    const admitted = this.admitted[lane] as number;
    const falseAdmits = this.falseAdmits[lane] as number;
    const falseDenials = this.falseDenials[lane] as number;
    const timeline = this.timelines[lane] ?? new TimelineCounter(this.options.originMs ?? 0, this.options.bucketMs);
    const coveredMs = timeline.originMs + (this.options.minBuckets ?? 0) * this.options.bucketMs;
    return {
      offered,
      admitted,
      denied: offered - admitted,
      falseAdmits,
      falseDenials,
      errorRate: offered === 0 ? 0 : ((falseAdmits + falseDenials) / offered) * 100,
      worstWindowRatio: (this.worstUnits[lane] as number) / this.options.limit,
      worstWindow: this.worstWindows[lane] ?? null,
      fairness: jainIndex(this.shares(lane)),
      keys: this.ledger.keys.length,
      timeline: timeline.result(coveredMs),
      labels: this.labels?.result(lane) ?? [],
    };
  }

  private *shares(lane: number): Iterable<number> {
    const { offered, admitted, keys, lanes } = this.ledger;
    for (let slot = 0; slot < keys.length; slot++)
      yield (admitted[slot * lanes + lane] as number) / (offered[slot] as number);
  }
}
