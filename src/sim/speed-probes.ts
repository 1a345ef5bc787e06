import { forEachConcurrently } from '../bench/runner.js';
import { SAMPLE_SPEED_DEFAULTS, measureSampleSpeeds, subjectOf, type SampleSpeedPlan } from '../bench/sample-speed.js';
import { sampleSpec, type SampleSpec } from '../bench/sample-workload.js';
import type { SubjectSpec } from '../bench/subjects.js';
import type { Arrival } from '../traffic/arrival.js';
import type { ComparisonRow, WorkloadComparison } from './comparison.js';
import type { Contender } from './contender.js';

/** One contender's samples, and the rows its figures go to. */
interface Job {
  subject: SubjectSpec;
  samples: SampleSpec[];
  targets: { row: ComparisonRow; result: WorkloadComparison }[];
}

/**
 * Decisions per second for a comparison's rows, measured as `ratelab bench` measures them:
 * one child process per contender times it on every workload's sample against the
 * reference bucket (see measureSampleSpeeds), `plan.processes` children at a time.
 */
export class SpeedProbes {
  private readonly jobs = new Map<string, Job>();

  constructor(private readonly plan: SampleSpeedPlan = SAMPLE_SPEED_DEFAULTS) {}

  /** Queues `row`'s figures: `contender` timed on `sample` (the replay's first arrivals) of `result`'s workload. */
  add(result: WorkloadComparison, row: ComparisonRow, contender: Contender, sample: readonly Arrival[]): void {
    if (sample.length === 0) return;
    const subject = subjectOf(contender.probe);
    const id = JSON.stringify(subject);
    let job = this.jobs.get(id);
    if (job === undefined) {
      job = { subject, samples: [], targets: [] };
      this.jobs.set(id, job);
    }
    // Samples are named by position: scenario names need not be unique (two trace files).
    // The reference bucket runs the first limit; a composite's sample laps once all its limits forgot it.
    job.samples.push(sampleSpec(String(job.samples.length), result.policy, sample, result.limits));
    job.targets.push({ row, result });
  }

  /** Runs the children and fills `opsPerSec` and `speedRatio`; a failed child leaves them null with a note. */
  async fill(): Promise<void> {
    await forEachConcurrently([...this.jobs.values()], this.plan.processes, async (job) => {
      try {
        const { speeds, note } = await measureSampleSpeeds(job.subject, job.samples, this.plan);
        for (const [i, { row, result }] of job.targets.entries()) {
          const speed = speeds[i];
          row.opsPerSec = speed?.opsPerSec ?? null;
          row.speedRatio = speed?.speedRatio ?? null;
          if (note) addNote(result, `${row.algorithm}: decisions/s ${note}`);
        }
      } catch (error) {
        for (const { row, result } of job.targets)
          addNote(result, `${row.algorithm}: decisions/s not measured, ${(error as Error).message}`);
      }
    });
  }
}

function addNote(result: WorkloadComparison, note: string): void {
  if (!result.notes.includes(note)) result.notes.push(note);
}
