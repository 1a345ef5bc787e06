import type { LimitSpec } from '../core/policy.js';
import type { MemoryTarget } from '../metrics/memory-probe.js';
import type { ChildResult } from './measure-child.js';
import { WALL_CLOCK_NOTE, measureInChild, speedFigure } from './runner.js';
import type { SampleSpec } from './sample-workload.js';
import type { SubjectSpec } from './subjects.js';

/** How long `ratelab compare` times each sample (see {@link SAMPLE_SPEED_DEFAULTS}). */
export interface SampleSpeedPlan {
  /** Rounds per sample; each round times the subject and the reference once, in turn. */
  rounds: number;
  /** Measuring time per task per round, ms. */
  roundMs: number;
  /** Batches of 1,000 decisions each task runs before it is timed. */
  warmUpBatches: number;
  /** Measuring children running at a time (one per subject). */
  processes: number;
}

/**
 * What the default all-built-ins run can afford inside its time budget (12 samples per
 * child, about 1.3 s of CPU). Many short rounds rather than a few long ones: each ratio then
 * pairs the subject with a reference timed within ~2 ms of it, before a busy neighbour
 * comes or goes. Two children at a time (the replays are over by then, so each has a
 * core) move no ratio beyond the run-to-run spread and shorten the run. Rerun:
 * bench/compare-speed-agreement.ts (figures in docs/lab.md).
 */
export const SAMPLE_SPEED_DEFAULTS: SampleSpeedPlan = { rounds: 40, roundMs: 0.75, warmUpBatches: 30, processes: 2 };

/** A subject's speed on one sample. */
interface SampleSpeed {
  /** The sample's workload name. */
  workload: string;
  /** Median over rounds of decisions per CPU second. */
  opsPerSec: number;
  /** Median over rounds of the subject's rate / the reference's rate in the same round. */
  speedRatio: number;
}

/** The speeds of one subject on its samples, in order, and what to say about them. */
export interface SampleSpeeds {
  speeds: SampleSpeed[];
  /** Set when the subject does not read the virtual clock it is given. */
  note?: string;
}

/** The benchmark subject of a limiter recipe (a compare contender's `probe`). */
export function subjectOf(recipe: MemoryTarget): SubjectSpec {
  if (!('algorithm' in recipe)) return { kind: 'module', path: recipe.module };
  if (!Array.isArray(recipe.policy)) return { kind: 'algorithm', algorithm: recipe.algorithm };
  return { kind: 'algorithm', algorithm: recipe.algorithm, limits: recipe.policy as readonly LimitSpec[] };
}

/**
 * Times `subject` on every sample in one child process, by `ratelab bench`'s method (see
 * measure-child.ts): the reference bucket on the same sample in the same process, warm-up,
 * rounds alternating which goes first, CPU time, the median of the per-round ratios. Throws
 * when the child fails.
 */
export async function measureSampleSpeeds(
  subject: SubjectSpec,
  samples: readonly SampleSpec[],
  plan: SampleSpeedPlan = SAMPLE_SPEED_DEFAULTS,
): Promise<SampleSpeeds> {
  const result = await measureInChild({
    subject,
    workloads: [...samples],
    rounds: plan.rounds,
    roundMs: plan.roundMs,
    warmUpBatches: plan.warmUpBatches,
    checkClock: subject.kind !== 'algorithm',
  });
  return speedsOf(result);
}

/** The figures of a child's measurements: per sample, the median rate and the median per-round ratio. */
export function speedsOf(result: Pick<Extract<ChildResult, { ok: true }>, 'workloads' | 'readsClock'>): SampleSpeeds {
  const speeds = result.workloads.map((one) => {
    const figure = speedFigure('subject', one.workload, one.subject, one.reference);
    return { workload: one.workload, opsPerSec: figure.value, speedRatio: figure.ratio };
  });
  return result.readsClock === false ? { speeds, note: WALL_CLOCK_NOTE } : { speeds };
}
