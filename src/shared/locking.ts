import { HEADER, SLOT, SLOT_WORDS, type Layout } from './layout.js';
import { LockTokens, LockWords } from './lock-words.js';

/** How operations on the table exclude each other: `per-key` (the design) or `global` (a baseline). */
export type LockingMode = 'per-key' | 'global';

/**
 * The locks one attached limiter takes, in a fixed order that cannot deadlock: a bucket
 * lock (inserting a key), then one slot lock (changing what a slot holds), then one row
 * lock (the key's state: all a decision takes), then the free-row stack's lock. A thread
 * never holds two locks of one kind. `row` returns true when it took the lock over from a
 * holder presumed dead (see {@link LockWords}), so the caller repairs the row; the other
 * locks guard nothing a dead holder could leave half-done but a leaked row.
 */
export interface Locking {
  /** Before any table operation (the global lock's place). */
  enter(): void;
  leave(): void;
  slot(slot: number): void;
  trySlot(slot: number): boolean;
  releaseSlot(slot: number): void;
  row(row: number): boolean;
  tryRow(row: number): boolean;
  releaseRow(row: number): void;
  bucket(home: number): void;
  releaseBucket(home: number): void;
  freeStack(): void;
  releaseFreeStack(): void;
}

/**
 * One lock per row (a key's state: the only lock a decision takes, in the row's own line
 * of the row lock column, so one thread's decisions write no line another thread's do),
 * one per table slot (inserting into and evicting from it), one per probe start for
 * inserts, one for the free-row stack (inserts and evictions only): threads deciding on
 * different keys touch different words and never wait for each other.
 */
class PerKeyLocking implements Locking {
  private readonly slotWords: LockWords;
  private readonly rowWords: LockWords;
  private readonly headerWords: LockWords;
  private slotToken = 0;
  private rowToken = 0;
  private bucketToken = 0;
  private stackToken = 0;

  constructor(
    view: Layout,
    leaseMs: number,
    private readonly tokens: LockTokens,
  ) {
    this.slotWords = new LockWords(view.slots, leaseMs);
    this.rowWords = new LockWords(view.rowLocks, leaseMs);
    this.headerWords = new LockWords(view.header, leaseMs);
  }

  enter(): void {}
  leave(): void {}

  slot(slot: number): void {
    this.slotToken = this.tokens.next();
    this.slotWords.acquire(slot * SLOT_WORDS + SLOT.lock, this.slotToken);
  }

  trySlot(slot: number): boolean {
    this.slotToken = this.tokens.next();
    return this.slotWords.tryAcquire(slot * SLOT_WORDS + SLOT.lock, this.slotToken);
  }

  releaseSlot(slot: number): void {
    this.slotWords.release(slot * SLOT_WORDS + SLOT.lock, this.slotToken);
  }

  row(row: number): boolean {
    this.rowToken = this.tokens.next();
    return this.rowWords.acquire(row, this.rowToken);
  }

  tryRow(row: number): boolean {
    this.rowToken = this.tokens.next();
    return this.rowWords.tryAcquire(row, this.rowToken);
  }

  releaseRow(row: number): void {
    this.rowWords.release(row, this.rowToken);
  }

  bucket(home: number): void {
    this.bucketToken = this.tokens.next();
    this.slotWords.acquire(home * SLOT_WORDS + SLOT.bucket, this.bucketToken);
  }

  releaseBucket(home: number): void {
    this.slotWords.release(home * SLOT_WORDS + SLOT.bucket, this.bucketToken);
  }

  freeStack(): void {
    this.stackToken = this.tokens.next();
    this.headerWords.acquire(HEADER.rowLock, this.stackToken);
  }

  releaseFreeStack(): void {
    this.headerWords.release(HEADER.rowLock, this.stackToken);
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

  constructor(
    view: Layout,
    leaseMs: number,
    private readonly tokens: LockTokens,
  ) {
    this.words = new LockWords(view.header, leaseMs);
  }

  enter(): void {
    this.token = this.tokens.next();
    this.words.acquire(HEADER.globalLock, this.token);
  }

  leave(): void {
    this.words.release(HEADER.globalLock, this.token);
  }

  slot(): void {}

  trySlot(): boolean {
    return true;
  }

  releaseSlot(): void {}

  row(): boolean {
    return false;
  }

  tryRow(): boolean {
    return true;
  }

  releaseRow(): void {}
  bucket(): void {}
  releaseBucket(): void {}
  freeStack(): void {}
  releaseFreeStack(): void {}
}

/** The locks of `mode` for one attached limiter. */
export function createLocking(mode: LockingMode, view: Layout, leaseMs: number, tokens: LockTokens): Locking {
  return mode === 'global' ? new GlobalLocking(view, leaseMs, tokens) : new PerKeyLocking(view, leaseMs, tokens);
}
