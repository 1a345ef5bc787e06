/**
 * Counts the calls a fleet makes to its store, one per round trip: a `central` decision,
 * or one node's part of a `sync` exchange. A call to a store that does not answer (during
 * an outage) still counts: it was sent, and waited for its timeout.
 */
export class StoreCalls {
  private n = 0;

  /** `calls` more calls (round trips, answered or timed out), a whole number >= 0. */
  add(calls: number): void {
    this.n += calls;
  }

  /** Calls so far, a whole number >= 0. */
  total(): number {
    return this.n;
  }
}
