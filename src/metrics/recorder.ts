import { jainIndex } from './fairness.js';
import { defaultLimitName } from '../core/limit-list.js';
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
  worstWindow: WorstWindow | null;
  /**
   * Per limit, in the order given (one entry for a single policy): its own worst window.
   * For a composite, `worstWindowRatio` and `worstWindow` are those of the limit with the
   * highest ratio (the first of those).
   */
  limits: LimitWorstWindow[];
  /** Jain's index over each key's admitted / offered; null with fewer than two keys. */
  fairness: number | null;
  /** Distinct keys seen. */
  keys: number;
  /** Offered and admitted units per bucket. */
  timeline: Timeline;
  /** Per source label, in the order first seen; empty when no arrival had a label. */
  labels: LabelMetrics[];
}

/** Where a worst window was: its key, its end time (ms) and the units it held. */
export interface WorstWindow {
  key: string;
  endMs: number;
  units: number;
}

/** One limit of several measured at once: its name in reports, `limit` units per `windowMs` ms. */
export interface WindowLimit {
  name: string;
  limit: number;
  windowMs: number;
}

/**
 * One limit's worst trailing window: the most units admitted for one key in any window
 * `(t - windowMs, t]`, over `limit` (`ratio`, at most 1.0 for an exact limiter), and where.
 */
export interface LimitWorstWindow extends WindowLimit {
  ratio: number;
  worstWindow: WorstWindow | null;
  /** True for a limit only watched (see `RecorderOptions.watched`): measured, not enforced by the oracle. */
  watched?: true;
}

/** What the recorder needs to know: the policy's limit and window, and the timeline's buckets. */
export interface RecorderOptions {
  /** The policy's (for a composite, its first limit's; see `limits`). */
  limit: number;
  windowMs: number;
  /**
   * Every limit of a composite, in order: the exact oracle admits only when each limit's
   * own sliding log does, and each limit's worst window is measured on its own window.
   * Default: the one limit `limit` per `windowMs`.
   */
  limits?: readonly WindowLimit[];
  /**
   * More limits whose worst windows are measured, listed after the enforced ones, but which
   * the oracle does not enforce and `worstWindowRatio` does not count: how a policy's
   * limits fare under another one (a composite scenario replayed under a single limit).
   */
  watched?: readonly WindowLimit[];
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
 *
 * With several `limits` (a composite) it keeps one window ledger per limit: the oracle is
 * the conjunction of exact sliding logs, one per limit, and every lane's admissions are
 * counted into each limit's window for that limit's worst window.
 */
export class MetricsRecorder {
  /** One per limit, in order; the first also counts offered and admitted requests per key. */
  private readonly ledgers: WindowLedger[];
  /** The enforced limits, then the watched ones. */
  private readonly limits: readonly WindowLimit[];
  /** How many of `limits` the oracle enforces (the first ones). */
  private readonly enforced: number;
  private readonly timelines: (TimelineCounter | undefined)[];
  private offered = 0;
  private readonly admitted: Float64Array;
  private readonly falseAdmits: Float64Array;
  private readonly falseDenials: Float64Array;
  /** Per limit and lane, at `limit * lanes + lane`. */
  private readonly worstUnits: Float64Array;
  private readonly worstWindows: (WorstWindow | null)[];
  /** Per limit, the entry logged for the arrival being decided (-1 for none). */
  private readonly entries: Int32Array;
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
  /** The client of the arrival offered last (within its label; -1: unknown). */
  private client = -1;

  constructor(
    private readonly options: RecorderOptions,
    readonly lanes = 1,
  ) {
    const enforced = options.limits ?? [
      { name: defaultLimitName(options.windowMs), limit: options.limit, windowMs: options.windowMs },
    ];
    this.enforced = enforced.length;
    this.limits = [...enforced, ...(options.watched ?? [])];
    this.ledgers = this.limits.map(() => new WindowLedger(lanes));
    this.timelines = Array.from({ length: lanes }, () =>
      options.originMs === undefined ? undefined : new TimelineCounter(options.originMs, options.bucketMs),
    );
    this.admitted = new Float64Array(lanes);
    this.falseAdmits = new Float64Array(lanes);
    this.falseDenials = new Float64Array(lanes);
    this.worstUnits = new Float64Array(lanes * this.limits.length);
    this.worstWindows = new Array<WorstWindow | null>(lanes * this.limits.length).fill(null);
    this.entries = new Int32Array(this.limits.length);
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
   * client first wanted it, for the label's waits; `client` its client's number within the
   * label, for the label's fairness); returns the exact oracle's verdict on it: admitted
   * when every limit's exact sliding log admits it.
   */
  offer(t: number, key: string, cost: number, id?: number, label?: string, since?: number, client?: number): boolean {
    const { ledgers, limits, enforced } = this;
    let exact = true;
    let slot = 0;
    // Every ledger sees the same keys in the same order, so a key has the same slot in each.
    for (let i = 0; i < ledgers.length; i++) {
      const ledger = ledgers[i] as WindowLedger;
      const limit = limits[i] as WindowLimit;
      slot = ledger.slot(key, id);
      ledger.expire(t - limit.windowMs);
      if (i < enforced) exact = oracleAdmits(ledger, slot, cost, limit.limit) && exact;
    }
    this.slot = slot;
    this.t = t;
    this.key = key;
    this.cost = cost;
    this.exact = exact;
    this.labelSlot = label === undefined ? -1 : (this.labels ??= new LabelCounts(this.lanes)).offer(label);
    this.waited = since === undefined ? -1 : t - since;
    this.client = client ?? -1;
    return this.exact;
  }

  /** The decision of the limiter of `lane` on the arrival offered last. */
  decide(lane: number, allowed: boolean): void {
    this.verdicts[lane] = allowed ? 1 : 0;
  }

  /** Counts the arrival offered last with every lane's decision. */
  commit(): void {
    const { ledgers, entries, slot, t, cost, exact, lanes, verdicts } = this;
    let any = exact;
    for (let lane = 0; lane < lanes && !any; lane++) any = verdicts[lane] === 1;
    for (let i = 0; i < ledgers.length; i++)
      entries[i] = any ? (ledgers[i] as WindowLedger).append(slot, t, exact ? cost : 0) : -1;
    const first = ledgers[0] as WindowLedger;
    first.offered[slot] = (first.offered[slot] as number) + 1;
    this.offered += 1;
    for (let lane = 0; lane < lanes; lane++) {
      const allowed = verdicts[lane] === 1;
      if (allowed) this.count(lane);
      else if (exact) this.falseDenials[lane] = (this.falseDenials[lane] as number) + 1;
      (this.timelines[lane] ??= new TimelineCounter(t, this.options.bucketMs)).add(t, cost, allowed);
    }
    if (this.labelSlot >= 0) this.countLabel();
  }

  /** Counts every lane's decision on the arrival offered last under its label. */
  private countLabel(): void {
    const { labels, labelSlot, exact, lanes, verdicts } = this;
    for (let lane = 0; lane < lanes; lane++)
      labels?.decide(labelSlot, lane, verdicts[lane] === 1, exact, this.waited, this.client);
  }

  /** Counts an admission by the limiter of `lane` into each limit's window and worst window. */
  private count(lane: number): void {
    const { ledgers, entries, slot, lanes } = this;
    const first = ledgers[0] as WindowLedger;
    first.admitted[slot * lanes + lane] = (first.admitted[slot * lanes + lane] as number) + 1;
    this.admitted[lane] = (this.admitted[lane] as number) + 1;
    if (!this.exact) this.falseAdmits[lane] = (this.falseAdmits[lane] as number) + 1;
    for (let i = 0; i < ledgers.length; i++) {
      const ledger = ledgers[i] as WindowLedger;
      ledger.keep(entries[i] as number, slot, lane, this.cost);
      const kept = ledger.keptSum[slot * lanes + lane] as number;
      const at = i * lanes + lane;
      if (kept > (this.worstUnits[at] as number)) {
        this.worstUnits[at] = kept;
        this.worstWindows[at] = { key: this.key, endMs: this.t, units: kept };
      }
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
    const limits = this.limits.map((limit, i): LimitWorstWindow => {
      const at = i * this.lanes + lane;
      const ratio = (this.worstUnits[at] as number) / limit.limit;
      const worstWindow = this.worstWindows[at] ?? null;
      return i < this.enforced ? { ...limit, ratio, worstWindow } : { ...limit, ratio, worstWindow, watched: true };
    });
    let worst = limits[0] as LimitWorstWindow;
    for (const limit of limits.slice(0, this.enforced)) if (limit.ratio > worst.ratio) worst = limit;
    return {
      offered,
      admitted,
      denied: offered - admitted,
      falseAdmits,
      falseDenials,
      errorRate: offered === 0 ? 0 : ((falseAdmits + falseDenials) / offered) * 100,
      worstWindowRatio: worst.ratio,
      worstWindow: worst.worstWindow,
      limits,
      fairness: jainIndex(this.shares(lane)),
      keys: (this.ledgers[0] as WindowLedger).keys.length,
      timeline: timeline.result(coveredMs),
      labels: this.labels?.result(lane) ?? [],
    };
  }

  private *shares(lane: number): Iterable<number> {
    const { offered, admitted, keys } = this.ledgers[0] as WindowLedger;
    const lanes = this.lanes;
    for (let slot = 0; slot < keys.length; slot++)
      yield (admitted[slot * lanes + lane] as number) / (offered[slot] as number);
  }
}

/**
 * Per limit, in order, the worst trailing window of what a limiter admitted: each limit's
 * most units for one key in any window `(t - windowMs, t]`, over its limit. `admitted`:
 * the admitted requests, in non-decreasing time order (ms), `cost` units each. The same
 * figures as {@link ReplayMetrics.limits} of a recorder fed every decision.
 */
export function limitWorstWindows(
  admitted: Iterable<{ t: number; key: string; cost: number }>,
  limits: readonly WindowLimit[],
): LimitWorstWindow[] {
  const first = limits[0];
  if (first === undefined) return [];
  const recorder = new MetricsRecorder({
    limit: first.limit,
    windowMs: first.windowMs,
    limits,
    bucketMs: first.windowMs,
  });
  for (const { t, key, cost } of admitted) recorder.record(t, key, cost, true);
  return recorder.result().limits;
}
