import type { Algorithm, Limits } from '../core/policy.js';
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

export type { Meter } from './meter.js';
