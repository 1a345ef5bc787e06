/** Offered and admitted units per time bucket, for charts. */
export interface Timeline {
  /** Time of the start of bucket 0, ms. */
  originMs: number;
  /**
   * Width of a bucket, ms: the width asked for, or, when that would take more than
   * {@link MAX_TIMELINE_BUCKETS} buckets, that width times 2, 10, 20, 100, 200, ...: the
   * smallest of them that fits.
   */
  bucketMs: number;
  /** Units offered in each bucket `[originMs + i * bucketMs, originMs + (i + 1) * bucketMs)`. */
  offered: number[];
  /** Units admitted in each bucket. */
  admitted: number[];
}

/**
 * Most buckets a timeline holds. A timeline is for charts (at most 68 columns) and for the
 * JSON; memory and output must follow the arrivals, not the time they span (a 3-line trace
 * over months at 1 s buckets would take millions of buckets per algorithm). At 16 B
 * per bucket this is 160 kB per algorithm, and still 150 times a chart's width.
 */
export const MAX_TIMELINE_BUCKETS = 10_000;

/**
 * Counts units into buckets that grow as time goes on (arrivals come in time order). When
 * an arrival (or the span to cover) lies beyond {@link MAX_TIMELINE_BUCKETS} buckets, the
 * buckets are merged into wider ones, by 2 and by 5 in turn (so the width stays the one
 * asked for times 1, 2, 10, 20, 100...): buckets aligned on the origin merge exactly, so
 * the counts are those of counting at the final width from the start.
 */
export class TimelineCounter {
  private offered = new Float64Array(64);
  private admitted = new Float64Array(64);
  private used = 0;
  /** The current bucket width, ms, and the factor of the next merge (2, then 5, then 2...). */
  private width: number;
  private nextFactor = 2;

  constructor(
    readonly originMs: number,
    bucketMs: number,
    private readonly maxBuckets = MAX_TIMELINE_BUCKETS,
  ) {
    this.width = bucketMs;
  }

  /** The current bucket width, ms. */
  get bucketMs(): number {
    return this.width;
  }

  /** Counts `units` offered at `t` (>= originMs), and admitted when `allowed`. */
  add(t: number, units: number, allowed: boolean): void {
    const i = this.reach(t);
    this.offered[i] = (this.offered[i] as number) + units;
    if (allowed) this.admitted[i] = (this.admitted[i] as number) + units;
  }

  /** The counts so far, covering at least `[originMs, endMs)` (padded with empty buckets). */
  result(endMs = this.originMs): Timeline {
    if (endMs > this.originMs) this.reach(endMs - 1);
    const length = this.used;
    return {
      originMs: this.originMs,
      bucketMs: this.width,
      offered: Array.from(this.offered.subarray(0, length)),
      admitted: Array.from(this.admitted.subarray(0, length)),
    };
  }

  /** The index of the bucket holding `t`, merging buckets first when it lies beyond the cap. */
  private reach(t: number): number {
    let i = Math.floor((t - this.originMs) / this.width);
    if (i < this.used) return i;
    while (i >= this.maxBuckets) {
      this.merge();
      i = Math.floor((t - this.originMs) / this.width);
    }
    if (i >= this.offered.length) this.grow(i + 1);
    this.used = Math.max(this.used, i + 1);
    return i;
  }

  /** Merges every `nextFactor` adjacent buckets into one. */
  private merge(): void {
    const factor = this.nextFactor;
    const used = Math.ceil(this.used / factor);
    for (let to = 0; to < used; to++) {
      let offered = 0;
      let admitted = 0;
      for (let from = to * factor; from < Math.min(this.used, (to + 1) * factor); from++) {
        offered += this.offered[from] as number;
        admitted += this.admitted[from] as number;
      }
      this.offered[to] = offered;
      this.admitted[to] = admitted;
    }
    this.offered.fill(0, used, this.used);
    this.admitted.fill(0, used, this.used);
    this.used = used;
    this.width *= factor;
    this.nextFactor = factor === 2 ? 5 : 2;
  }

  private grow(length: number): void {
    const size = Math.min(this.maxBuckets, Math.max(length, this.offered.length * 2));
    const offered = new Float64Array(size);
    const admitted = new Float64Array(size);
    offered.set(this.offered);
    admitted.set(this.admitted);
    this.offered = offered;
    this.admitted = admitted;
  }
}
