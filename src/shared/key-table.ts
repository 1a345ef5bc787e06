import { RatelabError } from '../errors.js';
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
 * Concurrency: a slot's lock guards the slot and its row. A lookup reads hashes without a
 * lock as a hint and checks the key again under the slot's lock. Inserts of keys sharing a
 * home slot are serialised by that home's bucket lock, so a key is never inserted twice;
 * the free slot it takes is claimed under its own slot lock.
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
   * @param repair called (slot locked) on the row of a live slot whose lock was taken over
   *   from a dead holder, who may have left it half-written.
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
   * The slot of the key the codec holds (with `hash`), locked; inserted at `now` when new
   * (then `fresh`, its row's state still to be initialised). The caller calls `release`.
   */
  acquire(hash: number, now: number): number {
    const slot = this.lockExisting(hash);
    return slot >= 0 ? slot : this.insert(hash, now);
  }

  release(slot: number): void {
    this.locks.releaseSlot(slot);
  }

  /** Drops the key the codec holds; whether it was live. */
  delete(hash: number): boolean {
    const slot = this.lockExisting(hash);
    if (slot < 0) return false;
    this.evictLocked(slot);
    this.locks.releaseSlot(slot);
    return true;
  }

  /** Drops every key idle at `now`; returns how many. */
  prune(now: number): number {
    return this.sweep(now, this.mask + 1);
  }

  private lockExisting(hash: number): number {
    const words = this.view.slots;
    const home = hash & this.mask;
    for (let i = 0; i < this.probe; i++) {
      const slot = (home + i) & this.mask;
      const at = slot * SLOT_WORDS;
      if (words[at + SLOT.hash] !== hash) continue;
      this.lockSlot(slot);
      if (words[at + SLOT.hash] === hash && this.holdsKey(words[at + SLOT.row] as number)) {
        this.row = words[at + SLOT.row] as number;
        this.fresh = false;
        return slot;
      }
      this.locks.releaseSlot(slot);
    }
    return -1;
  }

  private lockSlot(slot: number): void {
    if (this.locks.slot(slot) && this.hashOf(slot) !== 0) this.repair(this.rowOf(slot));
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

  private insert(hash: number, now: number): number {
    const home = hash & this.mask;
    this.locks.bucket(home);
    try {
      const found = this.lockExisting(hash);
      return found >= 0 ? found : this.claim(hash, home, now);
    } finally {
      this.locks.releaseBucket(home);
    }
  }

  /** A free slot in the key's probe window, locked and holding the key in a fresh row. */
  private claim(hash: number, home: number, now: number): number {
    const row = this.popRow(now);
    for (let pass = 0; pass < 2; pass++) {
      for (let i = 0; i < this.probe; i++) {
        const slot = (home + i) & this.mask;
        if (pass === 0 && this.hashOf(slot) !== 0) continue;
        this.lockSlot(slot);
        if (pass === 1 && this.hashOf(slot) !== 0 && this.idle(slot, now)) this.evictLocked(slot);
        if (this.hashOf(slot) === 0) {
          this.fill(slot, row, hash);
          return slot;
        }
        this.locks.releaseSlot(slot);
      }
    }
    this.rows.free(row);
    throw new RatelabError(
      'SHARED_TABLE_FULL',
      `shared limiter: the ${this.probe} slots where this key may live hold keys in use; raise maxKeys (the table keeps twice as many slots)`,
      { field: 'maxKeys' },
    );
  }

  private fill(slot: number, row: number, hash: number): void {
    const { keyBytes, keyLengths, slots } = this.view;
    keyBytes.set(this.codec.bytes.subarray(0, this.codec.length), row * this.maxKeyBytes);
    keyLengths[row] = this.codec.length;
    slots[slot * SLOT_WORDS + SLOT.row] = row;
    Atomics.store(slots, slot * SLOT_WORDS + SLOT.hash, hash);
    this.row = row;
    this.fresh = true;
  }

  private idle(slot: number, now: number): boolean {
    return (this.view.touched[this.rowOf(slot)] as number) + this.idleMs <= now;
  }

  private evictLocked(slot: number): void {
    const row = this.rowOf(slot);
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
   * skipped (they are in use, so not idle). Returns how many keys were dropped.
   */
  private sweep(now: number, steps: number): number {
    const start = Atomics.add(this.view.header, HEADER.sweep, steps);
    let dropped = 0;
    for (let i = 0; i < steps; i++) {
      const slot = (start + i) & this.mask;
      this.sweptSlots += 1;
      if (this.hashOf(slot) === 0 || !this.locks.trySlot(slot)) continue;
      if (this.hashOf(slot) !== 0 && this.idle(slot, now)) {
        this.evictLocked(slot);
        dropped += 1;
      }
      this.locks.releaseSlot(slot);
    }
    return dropped;
  }
}
