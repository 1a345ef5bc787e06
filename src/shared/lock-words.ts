import { performance } from 'node:perf_hooks';

/** Set in a lock word while some thread may sleep on it: the holder must wake one on release. */
const CONTENDED = 0x4000_0000;
/** Loads before a waiter sleeps: a critical section is well under a microsecond. */
const SPINS = 200;

/**
 * Locks in 32-bit words of shared memory (a futex-style mutex: Drepper, "Futexes Are
 * Tricky", mutex 2). A word is 0 when free, else the holder's token (see {@link LockTokens}),
 * with {@link CONTENDED} set once a waiter may sleep on it.
 *
 * A waiter spins {@link SPINS} loads, then sleeps with `Atomics.wait` in slices of at most
 * `leaseMs / 4`. A holder never sleeps or calls out, so one that keeps a lock longer than
 * `leaseMs` is taken for dead (a worker terminated or crashed inside the critical section):
 * a waiter that has seen the same token for `leaseMs` takes the lock over with one
 * compare-and-swap, and `acquire` tells its caller so, to repair what the holder guards.
 * The lease is the price of a design that cannot wedge: a thread that stalls over
 * `leaseMs` inside a section of a few hundred ns (a debugger, a swapped-out process) can
 * lose its lock while it still writes.
 */
export class LockWords {
  private readonly sliceMs: number;

  constructor(
    private readonly words: Int32Array,
    private readonly leaseMs: number,
  ) {
    this.sliceMs = Math.max(1, Math.min(50, leaseMs / 4));
  }

  /** Takes lock `index` with `token`; true when it was taken over from a holder presumed dead. */
  acquire(index: number, token: number): boolean {
    if (Atomics.compareExchange(this.words, index, 0, token) === 0) return false;
    return this.contend(index, token);
  }

  /** Takes lock `index` if it is free now; false otherwise. */
  tryAcquire(index: number, token: number): boolean {
    return Atomics.compareExchange(this.words, index, 0, token) === 0;
  }

  /**
   * Releases lock `index` held with `token`, waking a sleeper. A lock taken over meanwhile
   * (this thread stalled past the lease) is left to its new holder.
   */
  release(index: number, token: number): void {
    if (Atomics.compareExchange(this.words, index, token, 0) === token) return;
    if (Atomics.compareExchange(this.words, index, token | CONTENDED, 0) === (token | CONTENDED))
      Atomics.notify(this.words, index, 1);
  }

  private contend(index: number, token: number): boolean {
    const words = this.words;
    let seen = Atomics.load(words, index);
    let holder = 0;
    let since = 0;
    for (let spins = 0; ; spins++) {
      if (seen === 0) {
        // Once contended, stay marked: another waiter may still sleep on this word.
        seen = Atomics.compareExchange(words, index, 0, token | CONTENDED);
        if (seen === 0) return false;
        continue;
      }
      if (spins < SPINS) {
        seen = Atomics.load(words, index);
        continue;
      }
      if ((seen & CONTENDED) === 0) {
        const before = Atomics.compareExchange(words, index, seen, seen | CONTENDED);
        if (before !== seen) {
          seen = before;
          continue;
        }
        seen |= CONTENDED;
      }
      const now = performance.now();
      if ((seen & ~CONTENDED) !== holder) {
        holder = seen & ~CONTENDED;
        since = now;
      } else if (now - since >= this.leaseMs) {
        const before = Atomics.compareExchange(words, index, seen, token | CONTENDED);
        if (before === seen) return true;
        seen = before;
        continue;
      }
      Atomics.wait(words, index, seen, this.sliceMs);
      seen = Atomics.load(words, index);
    }
  }
}

/**
 * Lock tokens for one attached limiter: its member id (unique among the threads attached
 * to a buffer) in the high bits and a per-acquisition sequence number in the low 12, so a
 * waiter timing a lease sees a live holder's repeated acquisitions as different tokens.
 */
export class LockTokens {
  private readonly base: number;
  private seq = 0;

  constructor(member: number) {
    this.base = (member & 0x3_ffff) << 12;
  }

  next(): number {
    this.seq = (this.seq + 1) & 0xfff;
    return this.base | this.seq | (this.base === 0 && this.seq === 0 ? 1 : 0);
  }
}
