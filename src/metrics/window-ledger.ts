import { grow } from '../core/typed-arrays.js';

const FIRST_KEYS = 1024;
const FIRST_ENTRIES = 1024;

/**
 * Every key's sliding window `(t - W, t]` at once, for the metrics: per key (a slot in
 * typed-array columns) the units the exact oracle admitted and the units each limiter
 * admitted within the window, plus whole-run counts. Arrivals come in time order across
 * all keys, so one global first-in-first-out log of the window's entries expires them all:
 * O(1) amortised per arrival, memory O(keys + arrivals within one window), and no object
 * or array per key (a per-key log made the garbage collector a sixth of the replay).
 *
 * Several limiters deciding on the same arrivals (a lockstep replay) share one ledger, one
 * lane each: the oracle and the expiry then run once per arrival, not once per limiter.
 * Per-lane columns are indexed `slot * lanes + lane`; with one lane, just by slot.
 */
export class WindowLedger {
  /** Units in the window: admitted by the oracle per slot, and by each limiter per slot and lane. */
  oracleSum = new Float64Array(FIRST_KEYS);
  keptSum: Float64Array;
  /** Requests over the whole run: offered per slot, admitted per slot and lane. */
  offered = new Float64Array(FIRST_KEYS);
  admitted: Float64Array;
  /** Key of each slot. */
  readonly keys: string[] = [];
  private readonly slots = new Map<string, number>();
  /** Slot by the stream's key number, -1 where not seen yet. */
  private byId: Int32Array = new Int32Array(0);
  // The log: a ring of (time, slot, oracle units, limiter units), oldest at `head`.
  private times = new Float64Array(FIRST_ENTRIES);
  private owners = new Int32Array(FIRST_ENTRIES);
  private oracleUnits = new Float64Array(FIRST_ENTRIES);
  /** Per entry and lane. */
  private keptUnits: Float64Array;
  private head = 0;
  private size = 0;

  /** `lanes`: how many limiters' admissions it tracks (at least 1). */
  constructor(readonly lanes = 1) {
    this.keptSum = new Float64Array(FIRST_KEYS * lanes);
    this.admitted = new Float64Array(FIRST_KEYS * lanes);
    this.keptUnits = new Float64Array(FIRST_ENTRIES * lanes);
  }

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
    const { times, owners, oracleUnits, keptUnits, oracleSum, keptSum, lanes } = this;
    const mask = times.length - 1;
    let head = this.head;
    let size = this.size;
    while (size > 0 && (times[head] as number) <= horizon) {
      const owner = owners[head] as number;
      oracleSum[owner] = (oracleSum[owner] as number) - (oracleUnits[head] as number);
      for (let lane = 0; lane < lanes; lane++) {
        const i = owner * lanes + lane;
        keptSum[i] = (keptSum[i] as number) - (keptUnits[head * lanes + lane] as number);
      }
      head = (head + 1) & mask;
      size -= 1;
    }
    this.head = head;
    this.size = size;
  }

  /** Logs units admitted at `t` (not before the last entry) for `slot`, by the oracle and by the (one-lane) limiter. */
  add(slot: number, t: number, oracleUnits: number, keptUnits: number): void {
    if (oracleUnits === 0 && keptUnits === 0) return;
    const entry = this.append(slot, t, oracleUnits);
    if (keptUnits !== 0) this.keep(entry, slot, 0, keptUnits);
  }

  /**
   * Logs an entry at `t` (not before the last entry) for `slot` with the units the oracle
   * admitted and none yet for any lane; returns it for {@link keep}.
   */
  append(slot: number, t: number, oracleUnits: number): number {
    if (this.size === this.times.length) this.growLog();
    const at = (this.head + this.size) & (this.times.length - 1);
    this.times[at] = t;
    this.owners[at] = slot;
    this.oracleUnits[at] = oracleUnits;
    for (let lane = 0; lane < this.lanes; lane++) this.keptUnits[at * this.lanes + lane] = 0;
    this.size += 1;
    this.oracleSum[slot] = (this.oracleSum[slot] as number) + oracleUnits;
    return at;
  }

  /** Adds `units` admitted by the limiter of `lane` to the last entry, `entry`, of `slot`. */
  keep(entry: number, slot: number, lane: number, units: number): void {
    const lanes = this.lanes;
    this.keptUnits[entry * lanes + lane] = units;
    this.keptSum[slot * lanes + lane] = (this.keptSum[slot * lanes + lane] as number) + units;
  }

  private growColumns(needed: number): void {
    const length = Math.max(needed, this.offered.length * 2);
    this.oracleSum = grow(this.oracleSum, length);
    this.keptSum = grow(this.keptSum, length * this.lanes);
    this.offered = grow(this.offered, length);
    this.admitted = grow(this.admitted, length * this.lanes);
  }

  /** Doubles the ring (a power of two, so positions wrap with a mask), oldest entry first. */
  private growLog(): void {
    const length = this.times.length * 2;
    const mask = this.times.length - 1;
    const unroll = <T extends Float64Array | Int32Array>(column: T, next: T, width = 1): T => {
      for (let i = 0; i < this.size; i++) {
        const from = ((this.head + i) & mask) * width;
        for (let j = 0; j < width; j++) next[i * width + j] = column[from + j] as number;
      }
      return next;
    };
    this.times = unroll(this.times, new Float64Array(length));
    this.owners = unroll(this.owners, new Int32Array(length));
    this.oracleUnits = unroll(this.oracleUnits, new Float64Array(length));
    this.keptUnits = unroll(this.keptUnits, new Float64Array(length * this.lanes), this.lanes);
    this.head = 0;
  }
}

/** `column` grown to `length`, new entries -1. */
function growFilled(column: Int32Array, length: number): Int32Array {
  const next = new Int32Array(length).fill(-1);
  next.set(column);
  return next;
}
