import type { ConcurrencyReading } from './concurrency-probe.js';
import type { DeniedCountReading } from './denied-count-probe.js';
import type { Discovery } from './discovery-probe.js';
import type { EdgeReading } from './edge-probe.js';
import type { ClientHistory } from './fit.js';
import type { RetryCheck } from './header-truth.js';
import type { Inference } from './inference.js';
import type { Hypothesis } from './models.js';
import type { QueueReading } from './queue-probe.js';
import type { ScopeReading } from './scope-probe.js';
import type { Staircase } from './staircase.js';
import type { SoakReading } from './soak-probe.js';

/**
 * What the probes have measured so far. Filled in as the audit goes, so that an audit cut
 * short (a bound, Ctrl-C) still reports what it learned.
 */
export interface Readings {
  discovery?: Discovery;
  queue?: QueueReading;
  scope?: ScopeReading;
  staircase?: Staircase;
  /** A fresh client polled sparsely beside the recovery (few knocks). */
  sparse?: Staircase;
  /** The busy poller got nothing back while the sparse one did: its denials kept it out. */
  lockedOut?: boolean;
  concurrency?: ConcurrencyReading;
  edge?: EdgeReading;
  deniedCount?: DeniedCountReading;
  soak?: SoakReading;
  /** The family and figures the decisions point to (scored again after the later probes). */
  inference?: Inference;
  /** Every hypothesis scored, for the figures' ranges. */
  candidates?: Hypothesis[];
  /** The decisions they were scored against. */
  histories?: ClientHistory[];
  /** The checks of announced waits (see header-probe.ts). */
  retryChecks?: RetryCheck[];
  /** Header fields announced windows, ms (tried as candidates). */
  hintedWindowsMs: number[];
  /** Conclusions the audit's bounds made weaker. */
  weaker: string[];
}
