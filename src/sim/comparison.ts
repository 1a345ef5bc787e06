import type { LabelMetrics } from '../metrics/label-counts.js';
import type { LimitWorstWindow, ReplayMetrics } from '../metrics/recorder.js';
import type { Timeline } from '../metrics/timeline.js';
import type { LimitSpec, Policy } from '../core/policy.js';
import type { FocusView } from './focus.js';

/** One row of a comparison: one workload through one contender (see {@link ReplayMetrics} for the counts). */
export interface ComparisonRow extends Omit<ReplayMetrics, 'timeline' | 'worstWindow' | 'labels' | 'limits'> {
  /** Per limit of a composite policy, its own worst window; absent for a single policy. */
  limits?: LimitWorstWindow[];
  /** Per source label (offered, admitted, false denials, false admits); absent or empty when no source has a label. */
  labels?: LabelMetrics[];
  scenario: string;
  algorithm: string;
  /** Measured heap bytes per live key (key strings excluded); null when not measured. */
  bytesPerKey: number | null;
  /** The limiter's own account of its state per key; null when it gives none. */
  stateBytesPerKey: number | null;
  /** Decisions per second on a sample of this workload; null when not measured. */
  opsPerSec: number | null;
  /**
   * Decisions per second as a ratio to the reference limiter measured in the same rounds
   * (above 1: faster than the reference); the figure to rank by, since it cancels the
   * machine's load. Null when not measured.
   */
  speedRatio: number | null;
}

/** Everything one workload produced. */
export interface WorkloadComparison {
  name: string;
  description: string;
  /** The policy; for a composite, its first limit (the one charts and strips draw). */
  policy: Policy;
  /** A composite's limits (two or more), in order; absent for a single policy. */
  limits?: readonly LimitSpec[];
  /** Limits measured, not enforced (a composite scenario's own, under another `--policy`); absent when none. */
  watched?: readonly LimitSpec[];
  rows: ComparisonRow[];
  /** Per contender, in row order. */
  timelines: { algorithm: string; timeline: Timeline }[];
  /** Per contender, in row order: where its worst window was. */
  worstWindows: ReplayMetrics['worstWindow'][];
  notes: string[];
  /** One key followed through every contender (charts, request strip), when the comparison asked for it (CompareOptions.focus). */
  focus?: FocusView;
  /** More keys followed on finer grids (the HTML report's), when the comparison asked for them (CompareOptions.follow). */
  followed?: FocusView[];
}
