import type { Algorithm, Limits, NamedLimits } from '../core/policy.js';
import { CompositeMeter } from './composite-meter.js';
import { FixedWindow } from './fixed-window.js';
import { Gcra } from './gcra.js';
import type { Meter } from './meter.js';
import { SlidingCounter } from './sliding-counter.js';
import { SlidingLog } from './sliding-log.js';
import { TokenBucket } from './token-bucket.js';
import type { ColumnStore } from '../core/typed-arrays.js';

const METERS: Record<Algorithm, new (limits: Limits, store?: ColumnStore) => Meter> = {
  'token-bucket': TokenBucket,
  gcra: Gcra,
  'sliding-log': SlidingLog,
  'sliding-counter': SlidingCounter,
  'fixed-window': FixedWindow,
};

/** A fresh meter of `algorithm` for validated `limits`, its columns in `store` (default: private memory). */
export function createMeter(algorithm: Algorithm, limits: Limits, store?: ColumnStore): Meter {
  return new METERS[algorithm](limits, store);
}

export type { KeyState, Meter } from './meter.js';

/**
 * The meter of a limiter's checked limits: the one limit's own meter, or for several a
 * {@link CompositeMeter} over one meter per limit (in order), their columns in `store`.
 */
export function createLimitsMeter(list: readonly NamedLimits[], store?: ColumnStore): Meter {
  if (list.length === 1) return createMeter((list[0] as NamedLimits).algorithm, list[0] as NamedLimits, store);
  return new CompositeMeter(list.map((entry) => createMeter(entry.algorithm, entry, store)));
}

export { CompositeMeter } from './composite-meter.js';
