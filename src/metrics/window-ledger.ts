import { grow } from '../algorithms/meter.js';

const FIRST_KEYS = 1024;
const FIRST_ENTRIES = 1024;

/**
 * Every key's sliding window `(t - W, t]` at once, for the metrics: per key (a slot in
 * typed-array columns) the units the exact oracle admitted and the units the limiter
 * admitted within the window, plus whole-run counts. Arrivals come in time order across
 * all keys, so one global first-in-first-out log of the window's entries expires them all:
 * O(1) amortised per arrival, memory O(keys + arrivals within one window), and no object
 * or array per key (a per-key log made the garbage collector a sixth of the replay).
 */
export class WindowLedger {
  /** Units in the window, per slot: admitted by the oracle, and by the limiter. */
  oracleSum = new Float64Array(FIRST_KEYS);
  keptSum = new Float64Array(FIRST_KEYS);
  /** Requests over the whole run, per slot. */
  offered = new Float64Array(FIRST_KEYS);
  admitted = new Float64Array(FIRST_KEYS);
  /** Key of each slot. */
  readonly keys: string[] = [];
  private readonly slots = new Map<string, number>();
  /** Slot by the stream's key number, -1 where not seen yet. */
  private byId: Int32Array = new Int32Array(0);
  // The log: a ring of (time, slot, oracle units, limiter units), oldest at `head`.
  private times = new Float64Array(FIRST_ENTRIES);
  private owners = new Int32Array(FIRST_ENTRIES);
  private oracleUnits = new Float64Array(FIRST_ENTRIES);
  private keptUnits = new Float64Array(FIRST_ENTRIES);
  private head = 0;
  private size = 0;

  /**
   * The slot of `key`, created empty on first sight. With the stream's number for the key
   * (`Arrival.id`) it is found by array index, hashing the name only the first time.
   */
  slot(key: string, id?: number): number {
    if (id === undefined) return this.slotByName(key);
    if (id >= this.byId.length) this.byId = growFilled(this.byId, Math.max(id + 1, this.byId.length * 2));
    const known = this.byId[id] as number;
    if (known >= 0) return known;
    const slot = this.slotByName(key);
    this.byId[id] = slot;
    return slot;
  }

  private slotByName(key: string): number {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.keys.length;
      this.slots.set(key, slot);
      this.keys.push(key);
      if (slot >= this.offered.length) this.growColumns(slot + 1);
    }
    return slot;
  }

  /** Drops every entry at or before `horizon` (for windows ending at t: `t - W`). */
  expire(horizon: number): void {
    const mask = this.times.length - 1;
    while (this.size > 0 && (this.times[this.head] as number) <= horizon) {
      const owner = this.owners[this.head] as number;
      this.oracleSum[owner] = (this.oracleSum[owner] as number) - (this.oracleUnits[this.head] as number);
      this.keptSum[owner] = (this.keptSum[owner] as number) - (this.keptUnits[this.head] as number);
      this.head = (this.head + 1) & mask;
      this.size -= 1;
    }
  }

  /** Logs units admitted at `t` (not before the last entry) for `slot`, by the oracle and by the limiter. */
  add(slot: number, t: number, oracleUnits: number, keptUnits: number): void {
    if (oracleUnits === 0 && keptUnits === 0) return;
    if (this.size === this.times.length) this.growLog();
    const at = (this.head + this.size) & (this.times.length - 1);
    this.times[at] = t;
    this.owners[at] = slot;
    this.oracleUnits[at] = oracleUnits;
    this.keptUnits[at] = keptUnits;
    this.size += 1;
    this.oracleSum[slot] = (this.oracleSum[slot] as number) + oracleUnits;
    this.keptSum[slot] = (this.keptSum[slot] as number) + keptUnits;
  }

  private growColumns(needed: number): void {
    const length = Math.max(needed, this.offered.length * 2);
    this.oracleSum = grow(this.oracleSum, length);
    this.keptSum = grow(this.keptSum, length);
    this.offered = grow(this.offered, length);
    this.admitted = grow(this.admitted, length);
  }

  /** Doubles the ring (a power of two, so positions wrap with a mask), oldest entry first. */
  private growLog(): void {
    const length = this.times.length * 2;
    const unroll = <T extends Float64Array | Int32Array>(column: T, next: T): T => {
      for (let i = 0; i < this.size; i++) next[i] = column[(this.head + i) & (column.length - 1)] as number;
      return next;
    };
    this.times = unroll(this.times, new Float64Array(length));
    this.owners = unroll(this.owners, new Int32Array(length));
    this.oracleUnits = unroll(this.oracleUnits, new Float64Array(length));
    this.keptUnits = unroll(this.keptUnits, new Float64Array(length));
    this.head = 0;
  }
}

/** `column` grown to `length`, new entries -1. */
function growFilled(column: Int32Array, length: number): Int32Array {
  const next = new Int32Array(length).fill(-1);
  next.set(column);
  return next;
}
