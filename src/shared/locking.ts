import { HEADER, SLOT, SLOT_WORDS, type Layout } from './layout.js';
import { LockTokens, LockWords } from './lock-words.js';

/** How operations on the table exclude each other: `per-key` (the design) or `global` (a baseline). */
export type LockingMode = 'per-key' | 'global';

/**
 * The locks one attached limiter takes, in a fixed order that cannot deadlock: a bucket
 * lock (inserting a key), then one slot lock at a time, then the row stack's lock. A
 * thread never holds two locks of one kind. `slot` returns true when it took the lock over
 * from a holder presumed dead (see {@link LockWords}), so the caller repairs the slot; the
 * bucket and row-stack locks guard nothing a dead holder could leave half-done but a leaked row.
 */
export interface Locking {
  /** Before any table operation (the global lock's place). */
  enter(): void;
  leave(): void;
  slot(slot: number): boolean;
  trySlot(slot: number): boolean;
  releaseSlot(slot: number): void;
  bucket(home: number): void;
  releaseBucket(home: number): void;
  rows(): void;
  releaseRows(): void;
}

/**
 * One lock per table slot (a key's state is guarded by its slot's), one per probe start
 * for inserts, one for the row stack (inserts and evictions only): threads deciding on
 * different keys touch different words and never wait for each other.
 */
class PerKeyLocking implements Locking {
  private readonly slotWords: LockWords;
  private readonly headerWords: LockWords;
  private slotToken = 0;
  private bucketToken = 0;
  private rowToken = 0;

  constructor(
    view: Layout,
    leaseMs: number,
    private readonly tokens: LockTokens,
  ) {
    this.slotWords = new LockWords(view.slots, leaseMs);
    this.headerWords = new LockWords(view.header, leaseMs);
  }

  enter(): void {}
  leave(): void {}

  slot(slot: number): boolean {
    this.slotToken = this.tokens.next();
    return this.slotWords.acquire(slot * SLOT_WORDS + SLOT.lock, this.slotToken);
  }

  trySlot(slot: number): boolean {
    this.slotToken = this.tokens.next();
    return this.slotWords.tryAcquire(slot * SLOT_WORDS + SLOT.lock, this.slotToken);
  }

  releaseSlot(slot: number): void {
    this.slotWords.release(slot * SLOT_WORDS + SLOT.lock, this.slotToken);
  }

  bucket(home: number): void {
    this.bucketToken = this.tokens.next();
    this.slotWords.acquire(home * SLOT_WORDS + SLOT.bucket, this.bucketToken);
  }

  releaseBucket(home: number): void {
    this.slotWords.release(home * SLOT_WORDS + SLOT.bucket, this.bucketToken);
  }

  rows(): void {
    this.rowToken = this.tokens.next();
    this.headerWords.acquire(HEADER.rowLock, this.rowToken);
  }

  releaseRows(): void {
    this.headerWords.release(HEADER.rowLock, this.rowToken);
  }
}

/**
 * The same table behind one lock for everything: what per-key locking is measured against
 * (`ratelab bench --threads`). A holder that dies is recovered from like any other, but
 * the key it was deciding is not repaired: use it to measure, not to serve.
 */
class GlobalLocking implements Locking {
  private readonly words: LockWords;
  private token = 0;

  constructor(view: Layout, leaseMs: number, private readonly tokens: LockTokens) {
    this.words = new LockWords(view.header, leaseMs);
  }

  enter(): void {
    this.token = this.tokens.next();
    this.words.acquire(HEADER.globalLock, this.token);
  }

  leave(): void {
    this.words.release(HEADER.globalLock, this.token);
  }

  slot(): boolean {
    return false;
  }

  trySlot(): boolean {
    return true;
  }

  releaseSlot(): void {}
  bucket(): void {}
  releaseBucket(): void {}
  rows(): void {}
  releaseRows(): void {}
}

/** The locks of `mode` for one attached limiter. */
export function createLocking(mode: LockingMode, view: Layout, leaseMs: number, tokens: LockTokens): Locking {
  return mode === 'global' ? new GlobalLocking(view, leaseMs, tokens) : new PerKeyLocking(view, leaseMs, tokens);
}
