import { RatelabError } from '../core/errors.js';
import type { KeyCodec } from './key-codec.js';
import { HEADER, SLOT, SLOT_WORDS, type Layout } from './layout.js';
import type { Locking } from './locking.js';
import { RowAllocator } from './row-allocator.js';

/** Slots a full table examines for idle keys before it refuses a new key. */
export const SWEEP_STEPS = 64;

/**
 * The shared key table: open addressing with linear probing over `slots` (a power of two,
 * at least twice `maxKeys`, so at most half full), each slot pointing to a row of state.
 * A key lives within `probe` slots of its hash's home slot, and every lookup reads those
 * slots' hashes (the stated probe bound: at most `probe` slots per lookup, none beyond). Because a lookup
 * never stops at a free slot, a deletion just frees its slot: no tombstones, no moves.
 *
 * Concurrency: a row's lock guards its state; a slot's lock guards what the slot holds.
 * A decision takes only its key's row lock: a lookup reads the slots without a lock, as a
 * hint, and checks under the row's lock that the slot still names the row and the row holds
 * the key. Rows are handed out per thread (src/shared/row-allocator.ts) and the row locks
 * are a column of their own, so a thread's decisions write no cache line another thread's
 * decisions write (slots are placed by hash, and only read by a decision). Inserting into
 * a slot and evicting from it hold the slot's lock and the row's. Inserts of keys sharing a
 * home slot are serialised by that home's bucket lock, so a key is never inserted twice.
 *
 * Full table: a new key that finds no row free sweeps the next {@link SWEEP_STEPS} slots
 * for idle keys (untouched for `idleMs`, so dropping them changes no decision), from a
 * cursor that goes round the table, so every idle key is found within `slots / SWEEP_STEPS`
 * such keys; a key whose probe window is full first drops idle keys in the window. If
 * neither makes room, it is refused with `SHARED_TABLE_FULL`, at a bounded cost; known
 * keys are decided as before.
 */
export class SharedKeyTable {
  /** After {@link acquire}: the row of the key, and whether it was just inserted. */
  row = -1;
  fresh = false;
  /** Slots examined by sweeps for idle keys through this view, in all (what bounds a refusal's cost). */
  sweptSlots = 0;
  private readonly mask: number;
  private readonly rows: RowAllocator;

  /**
   * @param repair called (row locked) on a row whose lock was taken over from a dead
   *   holder, who may have left it half-written.
   */
  constructor(
    private readonly view: Layout,
    private readonly locks: Locking,
    private readonly codec: KeyCodec,
    private readonly maxKeyBytes: number,
    private readonly probe: number,
    private readonly idleMs: number,
    private readonly repair: (row: number) => void,
  ) {
    this.mask = view.slots.length / SLOT_WORDS - 1;
    this.rows = new RowAllocator(view, locks);
  }

  /** Live keys. */
  get size(): number {
    return this.rows.live;
  }

  /**
   * Finds the key the codec holds (with `hash`), inserting it at `now` when new (then
   * `fresh`, its row's state still to be initialised), and leaves its row ({@link row})
   * locked. The caller calls `release`.
   */
  acquire(hash: number, now: number): void {
    if (!this.lockExisting(hash)) this.insert(hash, now);
  }

  release(): void {
    this.locks.releaseRow(this.row);
  }

  /** Drops the key the codec holds; whether it was live. */
  delete(hash: number): boolean {
    const home = hash & this.mask;
    for (let i = 0; i < this.probe; i++) {
      const slot = (home + i) & this.mask;
      if (this.hashOf(slot) !== hash) continue;
      this.locks.slot(slot);
      const dropped = this.hashOf(slot) === hash && this.evictKey(slot);
      this.locks.releaseSlot(slot);
      if (dropped) return true;
    }
    return false;
  }

  /** Drops every key idle at `now`; returns how many. */
  prune(now: number): number {
    return this.sweep(now, this.mask + 1);
  }

  /**
   * Finds the key in its probe window and locks its row. Slots are read without a lock, as
   * hints; under the row's lock, the slot still naming the row with the key's hash and the
   * row holding the key's bytes means the key lives there: a slot changes only under its
   * row's lock too (inserts and evictions hold both), so the answer cannot be stale.
   */
  private lockExisting(hash: number): boolean {
    const words = this.view.slots;
    const home = hash & this.mask;
    for (let i = 0; i < this.probe; i++) {
      const at = ((home + i) & this.mask) * SLOT_WORDS;
      if (words[at + SLOT.hash] !== hash) continue;
      const row = words[at + SLOT.row] as number;
      this.lockRow(row);
      if (words[at + SLOT.hash] === hash && words[at + SLOT.row] === row && this.holdsKey(row)) {
        this.row = row;
        this.fresh = false;
        return true;
      }
      this.locks.releaseRow(row);
    }
    return false;
  }

  private lockRow(row: number): void {
    if (this.locks.row(row)) this.repair(row);
  }

  /** The hash in `slot` (0: free). Read without the slot's lock, it is only a hint. */
  private hashOf(slot: number): number {
    return this.view.slots[slot * SLOT_WORDS + SLOT.hash] as number;
  }

  private rowOf(slot: number): number {
    return this.view.slots[slot * SLOT_WORDS + SLOT.row] as number;
  }

  private holdsKey(row: number): boolean {
    return this.codec.equals(this.view.keyBytes, row * this.maxKeyBytes, this.view.keyLengths[row] as number);
  }

  private insert(hash: number, now: number): void {
    const home = hash & this.mask;
    this.locks.bucket(home);
    try {
      if (!this.lockExisting(hash)) this.claim(hash, home, now);
    } finally {
      this.locks.releaseBucket(home);
    }
  }

  /** Puts the key in a free slot of its probe window, in a fresh row, left locked. */
  private claim(hash: number, home: number, now: number): void {
    const row = this.popRow(now);
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < this.probe; i++) {
        const slot = (home + i) & this.mask;
        if (pass === 0 && this.hashOf(slot) !== 0) continue;
        this.locks.slot(slot);
        if (pass === 1 && this.hashOf(slot) !== 0) this.evictIdle(slot, now);
        const free = this.hashOf(slot) === 0;
        if (free) this.fill(slot, row, hash);
        this.locks.releaseSlot(slot);
        if (free) return;
      }
    }
    this.rows.free(row);
    throw new RatelabError(
      'SHARED_TABLE_FULL',
      `shared limiter: the ${this.probe} slots where this key may live hold keys in use; raise maxKeys (the table keeps twice as many slots)`,
      { field: 'maxKeys' },
    );
  }

  /** With `slot` locked: the key into `row`, which stays locked until its state is initialised. */
  private fill(slot: number, row: number, hash: number): void {
    const { keyBytes, keyLengths, slots } = this.view;
    this.lockRow(row);
    keyBytes.set(this.codec.bytes.subarray(0, this.codec.length), row * this.maxKeyBytes);
    keyLengths[row] = this.codec.length;
    slots[slot * SLOT_WORDS + SLOT.row] = row;
    Atomics.store(slots, slot * SLOT_WORDS + SLOT.hash, hash);
    this.row = row;
    this.fresh = true;
  }

  private idle(row: number, now: number): boolean {
    return (this.view.touched[row] as number) + this.idleMs <= now;
  }

  /** With `slot` (live) locked: drops its key when it holds the codec's key; whether it did. */
  private evictKey(slot: number): boolean {
    const row = this.rowOf(slot);
    this.lockRow(row);
    const match = this.holdsKey(row);
    if (match) this.evictLocked(slot, row);
    this.locks.releaseRow(row);
    return match;
  }

  /** With `slot` (live) locked: drops its key when idle at `now`. */
  private evictIdle(slot: number, now: number): void {
    const row = this.rowOf(slot);
    this.lockRow(row);
    if (this.idle(row, now)) this.evictLocked(slot, row);
    this.locks.releaseRow(row);
  }

  /** With the slot and its row locked: frees both. */
  private evictLocked(slot: number, row: number): void {
    Atomics.store(this.view.slots, slot * SLOT_WORDS + SLOT.hash, 0);
    this.rows.free(row);
  }

  /**
   * A free row; when none is, first one bounded sweep step (an idle key it drops frees its
   * row), so a refusal costs at most {@link SWEEP_STEPS} slots however large the table.
   */
  private popRow(now: number): number {
    const row = this.rows.take();
    if (row >= 0) return row;
    this.sweep(now, Math.min(SWEEP_STEPS, this.mask + 1));
    const swept = this.rows.take();
    if (swept >= 0) return swept;
    throw new RatelabError(
      'SHARED_TABLE_FULL',
      `shared limiter: all ${this.view.freeRows.length} keys (maxKeys) are in use and none of the ${SWEEP_STEPS} slots swept was idle; raise maxKeys`,
      { field: 'maxKeys' },
    );
  }

  /**
   * Examines the next `steps` slots from the shared sweep cursor, dropping idle keys; the
   * cursor moves on by `steps` first, so threads sweeping at once take different slots and
   * together go round the table in `slots / steps` sweeps. Slots locked by others are
   * skipped, as are rows locked by others (they are in use, so not idle). Returns how many
   * keys were dropped.
   */
  private sweep(now: number, steps: number): number {
    const start = Atomics.add(this.view.header, HEADER.sweep, steps);
    let dropped = 0;
    for (let i = 0; i < steps; i++) {
      const slot = (start + i) & this.mask;
      this.sweptSlots += 1;
      if (this.hashOf(slot) === 0 || !this.locks.trySlot(slot)) continue;
      const row = this.rowOf(slot);
      if (this.hashOf(slot) !== 0 && this.locks.tryRow(row)) {
        if (this.idle(row, now)) {
          this.evictLocked(slot, row);
          dropped += 1;
        }
        this.locks.releaseRow(row);
      }
      this.locks.releaseSlot(slot);
    }
    return dropped;
  }
}
