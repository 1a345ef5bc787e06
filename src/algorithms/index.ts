import type { Algorithm, Limits } from '../policy.js';
import { FixedWindow } from './fixed-window.js';
import { Gcra } from './gcra.js';
import type { Meter } from './meter.js';
import { SlidingCounter } from './sliding-counter.js';
import { SlidingLog } from './sliding-log.js';
import { TokenBucket } from './token-bucket.js';

const METERS: Record<Algorithm, new (limits: Limits) => Meter> = {
  'token-bucket': TokenBucket,
  gcra: Gcra,
  'sliding-log': SlidingLog,
  'sliding-counter': SlidingCounter,
  'fixed-window': FixedWindow,
};

/** A fresh meter of `algorithm` for validated `limits`. */
export function createMeter(algorithm: Algorithm, limits: Limits): Meter {
  return new METERS[algorithm](limits);
}

export type { Meter } from './meter.js';
