import type { Meter } from '../algorithms/index.js';

/**
 * Brings `slot`'s state forward from the key's time `last` to `now` and returns the key's
 * new time. A key's time never moves backwards: if the clock does (or one thread's clock is
 * behind another's), the key is decided as of its latest time, so a reversed clock can
 * delay admissions but never add any.
 */
export function advanceKeyTime(meter: Meter, slot: number, last: number, now: number): number {
  const at = now > last ? now : last;
  meter.refresh(slot, last, at);
  return at;
}
