import type { Meter } from './meter.js';

/**
 * Several meters deciding one key together, all or nothing: a request is admitted only if
 * every part admits it, and then every part takes its cost; a denial changes no part. The
 * parts share slot numbers (one slot per key, each part its own columns), so a key costs
 * the sum of the parts' columns and no object.
 *
 * Invariant the all-or-nothing take rests on: a part's `waitFor(slot, now, cost)` is 0
 * exactly when its `take(slot, now, cost)` would admit (checked by the composite laws in
 * test/algorithms).
 */
export class CompositeMeter implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot: number;

  /** @param parts at least one meter, in the order of the limits they enforce. */
  constructor(readonly parts: readonly Meter[]) {
    let fullAfterMs = 0;
    let bytesPerSlot = 0;
    for (const part of parts) {
      fullAfterMs = Math.max(fullAfterMs, part.fullAfterMs);
      bytesPerSlot += part.bytesPerSlot;
    }
    this.fullAfterMs = fullAfterMs;
    this.bytesPerSlot = bytesPerSlot;
  }

  resize(capacity: number): void {
    for (const part of this.parts) part.resize(capacity);
  }

  init(slot: number, now: number): void {
    for (const part of this.parts) part.init(slot, now);
  }

  release(slot: number): void {
    for (const part of this.parts) part.release?.(slot);
  }

  refresh(slot: number, last: number, now: number): void {
    for (const part of this.parts) part.refresh(slot, last, now);
  }

  /** Asks every part but the last whether it would admit, lets the last decide by taking, then takes from the rest. */
  take(slot: number, now: number, cost: number): boolean {
    const last = this.parts.length - 1;
    for (let i = 0; i < last; i++) if ((this.parts[i] as Meter).waitFor(slot, now, cost) !== 0) return false;
    if (!(this.parts[last] as Meter).take(slot, now, cost)) return false;
    for (let i = 0; i < last; i++) (this.parts[i] as Meter).take(slot, now, cost);
    return true;
  }

  /** The least any part could admit now. */
  remaining(slot: number, now: number): number {
    let least = Infinity;
    for (const part of this.parts) least = Math.min(least, part.remaining(slot, now));
    return least;
  }

  /** The longest wait of the parts: once it is over, every part admits `cost` (if nothing else arrives). */
  waitFor(slot: number, now: number, cost: number): number {
    let longest = 0;
    for (const part of this.parts) longest = Math.max(longest, part.waitFor(slot, now, cost));
    return longest;
  }

  untilFull(slot: number, now: number): number {
    let longest = 0;
    for (const part of this.parts) longest = Math.max(longest, part.untilFull(slot, now));
    return longest;
  }
}
