import { isDown, type Outage } from './outage.js';

/**
 * When the counts of the `sync` design reach the nodes. Every node publishes its counts
 * at each tick `k * syncMs` (k = 0, 1, ...) and reads the others' in the same exchange,
 * which completes `rttMs` later; exchanges started while the store is down are lost.
 * So at time t every node knows every admission made at or before
 * `lastSync(t)`: the latest tick `s` with `s + rttMs <= t` outside the outage, and its
 * view of the others is stale by `t - s`, between `rttMs` and `syncMs + rttMs` (longer
 * during and just after an outage).
 */
export class SyncSchedule {
  constructor(
    /** The period of the exchanges, ms (> 0). */
    readonly syncMs: number,
    private readonly rttMs: number,
    private readonly outage: Outage | undefined,
  ) {}

  /** Admissions at or before this time are known to every node at `t`; -Infinity before the first exchange lands. */
  lastSync(t: number): number {
    const arrived = t - this.rttMs;
    if (arrived < 0) return -Infinity;
    const tick = Math.floor(arrived / this.syncMs) * this.syncMs;
    if (!isDown(this.outage, tick)) return tick;
    const before = Math.ceil((this.outage as Outage).startMs / this.syncMs) - 1;
    return before < 0 ? -Infinity : before * this.syncMs;
  }
}
