/** A decision of a simulated node: admitted or not and, when its limiter says, when to retry (ms). */
export interface Verdict {
  allowed: boolean;
  retryAfterMs?: number;
}

/**
 * How one distributed design decides, given the node a request reached. The fleet
 * (see `Fleet`) handles the load balancer, the outage, the fail mode and the latency
 * around it; a design only says what it would decide and what it needs.
 */
export interface Design {
  /** Whether every decision is a call to the store (then it waits a round trip, or the timeout in an outage). */
  readonly remote: boolean;
  /** Whether it needs the store at all (then its fail mode applies during an outage). */
  readonly needsStore: boolean;
  /** The decision on `cost` units of `key` reaching `node` at `t`, with the store reachable. */
  decide(node: number, key: string, cost: number, t: number): Verdict;
  /** The decision with the store unreachable, under fail mode `open`. */
  decideOpen(node: number, key: string, cost: number, t: number): Verdict;
  /** `node` admitted `cost` units of `key` at `t` on its own limiter (fail mode `local`). */
  admittedLocally(node: number, key: string, cost: number, t: number): void;
  /**
   * Brings the design's own calls to the store, those no decision waits for (the `sync`
   * exchanges), up to `t`: every one due before `t` has been made. The fleet calls it
   * before each decision and once at the end of the run.
   */
  advance(t: number): void;
}
