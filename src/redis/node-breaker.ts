/**
 * Circuit breakers, one per Redis node: a failure (an error or a timeout of a script call)
 * opens the breaker of the node that served the call, and for `openMs` its keys go
 * straight to the fail mode without a round trip, so a hanging node costs one timeout per
 * `openMs`, not one per call. Then one call is let through as a probe (half-open): its
 * success closes the breaker, its failure opens it again. Keys on other nodes never notice.
 * An open breaker keeps what failed, so a decision it makes can say why.
 */
/** How the `error` of a decision an open breaker made begins; the failure that opened it follows. */
export const CIRCUIT_OPEN = 'not sent (circuit open): ';

export class NodeBreakers {
  /** Nodes not closed: when they may probe again, whether a probe is out, and what failed. */
  private readonly open = new Map<string, { until: number; probing: boolean; cause: string }>();

  constructor(private readonly openMs: number) {}

  /** Whether a call to `node` may go to Redis at time `now` (ms); a half-open node lets one through. */
  allow(node: string, now: number): boolean {
    const state = this.open.get(node);
    if (state === undefined) return true;
    if (state.probing || now < state.until) return false;
    state.probing = true;
    return true;
  }

  /**
   * A call to `node` answered. Only a half-open breaker closes: a call sent before the
   * breaker opened and answered late says nothing about the node now.
   */
  succeeded(node: string): void {
    if (this.open.size > 0 && this.open.get(node)?.probing === true) this.open.delete(node);
  }

  /** A call to `node` failed at time `now` (ms); `cause` says how (a timeout, the client's error). */
  failed(node: string, now: number, cause: string): void {
    this.open.set(node, { until: now + this.openMs, probing: false, cause });
  }

  /** The nodes whose breaker is not closed now (open, or half-open with its probe out): their keys go to the fail mode. */
  openNodes(): string[] {
    return [...this.open.keys()];
  }

  /** Why `node`'s breaker is open: its last failure, as {@link failed} was told (`undefined` when closed). */
  causeOf(node: string): string | undefined {
    return this.open.get(node)?.cause;
  }
}
