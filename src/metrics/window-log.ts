/**
 * The units one key had in a sliding window: (time, units) entries in time order, oldest
 * first, with their running sum. Entries at the same time are merged, so a burst in one
 * millisecond is one entry. Amortised O(1) per call: each entry is added once and
 * expired once; the arrays are compacted once half of them is expired.
 */
export class WindowLog {
  private times: number[] = [];
  private units: number[] = [];
  private head = 0;
  /** Units of the entries still in the log. */
  sum = 0;

  /** Drops the entries at or before `horizon` (for the window `(t - W, t]`, horizon `t - W`). */
  expire(horizon: number): void {
    const times = this.times;
    let head = this.head;
    while (head < times.length && (times[head] as number) <= horizon) {
      this.sum -= this.units[head] as number;
      head += 1;
    }
    this.head = head;
    if (head > 32 && head * 2 > times.length) this.compact();
  }

  /** Adds `units` at time `t` (never before the last entry's time). */
  add(t: number, units: number): void {
    const last = this.times.length - 1;
    if (last >= this.head && this.times[last] === t) this.units[last] = (this.units[last] as number) + units;
    else {
      this.times.push(t);
      this.units.push(units);
    }
    this.sum += units;
  }

  private compact(): void {
    this.times = this.times.slice(this.head);
    this.units = this.units.slice(this.head);
    this.head = 0;
  }
}
