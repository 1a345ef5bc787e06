/**
 * What a fleet of `sync` nodes knows about one key's admissions in the sliding window:
 * every admission in time order with the node that made it, split at the last sync
 * time `s` into the part every node has received (`synced`) and, per node, its own
 * admissions since `s` that the others have not seen yet (`pending`).
 *
 * Node i's estimate of the global count in `(t - W, t]` is then
 * `synced + pending[i]`: exact for its own admissions, and missing exactly the other
 * nodes' admissions in `(s, t]`. Amortised O(1) per call: each admission is added,
 * synced and expired once.
 */
export class SyncedWindow {
  private times: number[] = [];
  private owners: number[] = [];
  private units: number[] = [];
  /** First entry still in the window. */
  private head = 0;
  /** First entry not yet synced (never before `head`). */
  private cut = 0;
  /** Units in the window that every node has received. */
  private synced = 0;
  /** Per node: its own units in the window that the others have not received. */
  private readonly pending: Float64Array;

  constructor(nodes: number) {
    this.pending = new Float64Array(nodes);
  }

  /** Drops the admissions at or before `horizon` (`t - W` for the window `(t - W, t]`). */
  expire(horizon: number): void {
    while (this.head < this.times.length && (this.times[this.head] as number) <= horizon) {
      const units = this.units[this.head] as number;
      if (this.head < this.cut) this.synced -= units;
      else this.take(this.owners[this.head] as number, units);
      this.head += 1;
    }
    if (this.cut < this.head) this.cut = this.head;
    if (this.head > 32 && this.head * 2 > this.times.length) this.compact();
  }

  /** Every node has now received the admissions made at or before `s`. */
  syncUpTo(s: number): void {
    while (this.cut < this.times.length && (this.times[this.cut] as number) <= s) {
      const units = this.units[this.cut] as number;
      this.take(this.owners[this.cut] as number, units);
      this.synced += units;
      this.cut += 1;
    }
  }

  /** Node `node`'s view of the units admitted in the window: all synced units plus its own since. */
  estimate(node: number): number {
    return this.synced + (this.pending[node] as number);
  }

  /** Node `node` admitted `units` at `t` (not before the last admission). */
  add(t: number, node: number, units: number): void {
    this.times.push(t);
    this.owners.push(node);
    this.units.push(units);
    this.pending[node] = (this.pending[node] as number) + units;
  }

  private take(node: number, units: number): void {
    this.pending[node] = (this.pending[node] as number) - units;
  }

  private compact(): void {
    this.times = this.times.slice(this.head);
    this.owners = this.owners.slice(this.head);
    this.units = this.units.slice(this.head);
    this.cut -= this.head;
    this.head = 0;
  }
}
