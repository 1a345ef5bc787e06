/** Offered and admitted units per time bucket, for charts. */
export interface Timeline {
  /** Time of the start of bucket 0, ms. */
  originMs: number;
  /** Width of a bucket, ms. */
  bucketMs: number;
  /** Units offered in each bucket `[originMs + i * bucketMs, originMs + (i + 1) * bucketMs)`. */
  offered: number[];
  /** Units admitted in each bucket. */
  admitted: number[];
}

/** Counts units into buckets that grow as time goes on (arrivals come in time order). */
export class TimelineCounter {
  private offered = new Float64Array(64);
  private admitted = new Float64Array(64);
  private used = 0;

  constructor(
    readonly originMs: number,
    readonly bucketMs: number,
  ) {}

  /** Counts `units` offered at `t` (>= originMs), and admitted when `allowed`. */
  add(t: number, units: number, allowed: boolean): void {
    const i = Math.floor((t - this.originMs) / this.bucketMs);
    if (i >= this.offered.length) this.grow(i + 1);
    if (i >= this.used) this.used = i + 1;
    this.offered[i] = (this.offered[i] as number) + units;
    if (allowed) this.admitted[i] = (this.admitted[i] as number) + units;
  }

  /** The counts so far, padded with empty buckets to `minBuckets`. */
  result(minBuckets = 0): Timeline {
    const length = Math.max(this.used, minBuckets);
    if (length > this.offered.length) this.grow(length);
    return {
      originMs: this.originMs,
      bucketMs: this.bucketMs,
      offered: Array.from(this.offered.subarray(0, length)),
      admitted: Array.from(this.admitted.subarray(0, length)),
    };
  }

  private grow(length: number): void {
    const size = Math.max(length, this.offered.length * 2);
    const offered = new Float64Array(size);
    const admitted = new Float64Array(size);
    offered.set(this.offered);
    admitted.set(this.admitted);
    this.offered = offered;
    this.admitted = admitted;
  }
}
