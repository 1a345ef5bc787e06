import type { Meter } from './meter.js';

/**
 * Several meters deciding one key together, all or nothing: a request is admitted only if
 * every part admits it, and then every part takes its cost; a denial changes no part. The
 * parts share slot numbers (one slot per key, each part its own columns), so a key costs
 * the sum of the parts' columns and no object.
 *
 * Built as a chain of pairs: the first part beside the rest (the second part, or a
 * composite of the others), so every method is two calls and no loop. Two limits, the
 * common case (a burst and a sustained one), decide with no loop at all: measured faster
 * than a loop over the parts (docs/bench.md, "Several limits").
 *
 * Invariant the all-or-nothing take rests on: a part's `waitFor(slot, now, cost)` is 0
 * exactly when its `take(slot, now, cost)` would admit (checked by the composite laws in
 * test/algorithms).
 */
export class CompositeMeter implements Meter {
  readonly fullAfterMs: number;
  readonly bytesPerSlot: number;
  private readonly first: Meter;
  /** Every part but the first: one meter, or a composite of them. */
  private readonly rest: Meter;

  /** @param parts at least two meters, in the order of the limits they enforce (a RangeError otherwise). */
  constructor(readonly parts: readonly Meter[]) {
    if (parts.length < 2) throw new RangeError(`a composite meter needs at least two parts, got ${parts.length}`);
    this.first = parts[0] as Meter;
    this.rest = parts.length === 2 ? (parts[1] as Meter) : new CompositeMeter(parts.slice(1));
    this.fullAfterMs = Math.max(this.first.fullAfterMs, this.rest.fullAfterMs);
    this.bytesPerSlot = this.first.bytesPerSlot + this.rest.bytesPerSlot;
  }

  resize(capacity: number): void {
    this.first.resize(capacity);
    this.rest.resize(capacity);
  }

  init(slot: number, now: number): void {
    this.first.init(slot, now);
    this.rest.init(slot, now);
  }

  release(slot: number): void {
    this.first.release?.(slot);
    this.rest.release?.(slot);
  }

  refresh(slot: number, last: number, now: number): void {
    this.first.refresh(slot, last, now);
    this.rest.refresh(slot, last, now);
  }

  /** Asks the first part whether it would admit, lets the rest decide by taking (all or nothing among themselves), then takes from the first. */
  take(slot: number, now: number, cost: number): boolean {
    if (this.first.waitFor(slot, now, cost) !== 0) return false;
    if (!this.rest.take(slot, now, cost)) return false;
    this.first.take(slot, now, cost);
    return true;
  }

  /** The least any part could admit now. */
  remaining(slot: number, now: number): number {
    return Math.min(this.first.remaining(slot, now), this.rest.remaining(slot, now));
  }

  /** The longest wait of the parts: once it is over, every part admits `cost` (if nothing else arrives). */
  waitFor(slot: number, now: number, cost: number): number {
    return Math.max(this.first.waitFor(slot, now, cost), this.rest.waitFor(slot, now, cost));
  }

  untilFull(slot: number, now: number): number {
    return Math.max(this.first.untilFull(slot, now), this.rest.untilFull(slot, now));
  }
}
