/**
 * Walker's alias method (Vose's construction): draws index i with probability
 * `weights[i] / sum(weights)` in O(1) from one uniform number, after O(n) set-up. Used for
 * Zipf key popularity over up to 1e6 keys, where a binary search over cumulative weights
 * (17-20 dependent, unpredictable steps) cost more than the limiter decision itself.
 */
export class AliasTable {
  private readonly keep: Float64Array;
  private readonly alias: Int32Array;

  constructor(weights: ArrayLike<number>) {
    const n = weights.length;
    let sum = 0;
    for (let i = 0; i < n; i++) sum += weights[i] as number;
    const scaled = new Float64Array(n);
    for (let i = 0; i < n; i++) scaled[i] = ((weights[i] as number) * n) / sum;
    this.keep = new Float64Array(n).fill(1);
    this.alias = Int32Array.from({ length: n }, (_, i) => i);
    const small: number[] = [];
    const large: number[] = [];
    for (let i = 0; i < n; i++) ((scaled[i] as number) < 1 ? small : large).push(i);
    while (small.length > 0 && large.length > 0) {
      const less = small.pop() as number;
      const more = large.pop() as number;
      this.keep[less] = scaled[less] as number;
      this.alias[less] = more;
      scaled[more] = (scaled[more] as number) + (scaled[less] as number) - 1;
      ((scaled[more] as number) < 1 ? small : large).push(more);
    }
    // Whatever is left has probability 1 up to rounding: keep[i] stays 1.
  }

  /** The index drawn by `u`, a uniform number in [0, 1). */
  pick(u: number): number {
    const scaled = u * this.keep.length;
    const i = Math.floor(scaled);
    return scaled - i < (this.keep[i] as number) ? i : (this.alias[i] as number);
  }
}
