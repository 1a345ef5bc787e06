import type { SampleSpeedPlan } from '../bench/sample-speed.js';
import { measureMemory, type MemorySample } from '../metrics/memory-probe.js';
import type { ReplayMetrics } from '../metrics/recorder.js';
import type { PolicyInput } from '../core/policy.js';
import { policyInputOf } from '../scenario/scenario.js';
import type { Contender } from './contender.js';
import { followKeys, type FocusPlan } from './focus.js';
import { replay, replayLockstep, type ReplayOptions, type ReplayResult } from './replay.js';
import { SpeedProbes } from './speed-probes.js';
import type { ComparisonRow, WorkloadComparison } from './comparison.js';
import { watchedLimitsOf, windowLimitsOf, type Workload } from './workload.js';

/** Options of {@link compareWorkloads}. */
export interface CompareOptions {
  /** The contenders for a policy, one or a composite's list (a fresh set per workload, since the policy may differ). */
  contenders(policy: PolicyInput): Promise<Contender[]> | Contender[];
  /** Measure memory per key and decisions per second (default true); false leaves them null. */
  measure?: boolean;
  /** Arrivals timed for decisions per second (default 4,000). */
  sampleSize?: number;
  /** Keys the memory probe creates (default 20,000). */
  memoryKeys?: number;
  /** Rounds and time of each speed measurement (default SAMPLE_SPEED_DEFAULTS). */
  speed?: SampleSpeedPlan;
  /** Called before each replay: what is replayed, and which workload of how many (`position` from 1). */
  onProgress?(label: string, position: number, total: number): void;
  /**
   * Which key to follow in a second pass over a workload, and over which columns, given
   * its first pass (none when it returns undefined); fills {@link WorkloadComparison.focus}.
   */
  focus?(result: WorkloadComparison): FocusPlan | undefined;
  /**
   * More keys to follow, in the same second pass, given the first pass: fills
   * {@link WorkloadComparison.followed} (the HTML report's keys and grids).
   */
  follow?(result: WorkloadComparison): FocusPlan[];
}

/**
 * Replays each workload through each contender (each on its own virtual clock; open-loop
 * workloads in lockstep from one stream, closed-loop ones on a stream per contender) and
 * collects the rows. Memory is probed once per distinct (limiter, policy)
 * in child processes, one at a time, while the replays run; speed once per contender, in a
 * child process timing it on every workload's sample after the replays (see SpeedProbes).
 * A failed probe leaves its figure null with a note rather than failing the run.
 */
export async function compareWorkloads(
  workloads: readonly Workload[],
  options: CompareOptions,
): Promise<WorkloadComparison[]> {
  const measure = options.measure ?? true;
  const memory = new MemoryProbes(options.memoryKeys ?? 20_000);
  const speed = new SpeedProbes(options.speed);
  const prepared = [];
  for (const workload of workloads) {
    const contenders = await options.contenders(policyInputOf(workload));
    if (measure) for (const contender of contenders) memory.start(contender);
    prepared.push({ workload, contenders });
  }
  const results: WorkloadComparison[] = [];
  for (const [index, { workload, contenders }] of prepared.entries()) {
    const result: WorkloadComparison = {
      name: workload.name,
      description: workload.description,
      policy: workload.policy,
      ...(workload.limits === undefined ? {} : { limits: workload.limits }),
      rows: [],
      timelines: [],
      worstWindows: [],
      notes: [],
    };
    const watched = watchedLimitsOf(workload);
    if (watched.length > 0) result.watched = watched;
    const replayOptions = {
      limit: workload.policy.limit,
      windowMs: workload.policy.windowMs,
      ...(workload.limits === undefined ? {} : { limits: windowLimitsOf(workload) }),
      watched,
      bucketMs: workload.bucketMs,
      originMs: workload.originMs,
      minBuckets: workload.minBuckets,
      sample: measure ? (options.sampleSize ?? 4_000) : 0,
    };
    const progress = (label: string) => options.onProgress?.(label, index + 1, prepared.length);
    const runs = await replayAll(workload, contenders, replayOptions, progress);
    for (const [i, contender] of contenders.entries()) {
      const run = runs[i] as ReplayResult;
      const row = toRow(workload.name, contender, run.metrics, undefined);
      if (measure) speed.add(result, row, contender, run.sample);
      result.rows.push(row);
      result.timelines.push({ algorithm: contender.name, timeline: run.metrics.timeline });
      result.worstWindows.push(run.metrics.worstWindow);
    }
    result.notes.push(...workload.notes());
    await addFocus(result, workload, contenders, options, progress);
    results.push(result);
  }
  if (measure)
    await Promise.all([
      speed.fill(),
      memory.fill(
        results,
        prepared.map((p) => p.contenders),
      ),
    ]);
  return results;
}

/** The second pass following the keys the options plan, when they plan any (one pass for all of them). */
async function addFocus(
  result: WorkloadComparison,
  workload: Workload,
  contenders: readonly Contender[],
  options: CompareOptions,
  progress: (label: string) => void,
): Promise<void> {
  const plan = options.focus?.(result);
  const more = options.follow?.(result) ?? [];
  const plans = plan ? [plan, ...more] : more;
  if (plans.length === 0) return;
  progress(`${workload.name}: following ${[...new Set(plans.map((p) => p.key))].join(', ')}`);
  const views = await followKeys(workload, contenders, plans);
  if (plan) result.focus = views[0];
  if (more.length > 0) result.followed = views.slice(plan ? 1 : 0);
}

/**
 * Every contender's replay of `workload`: an open-loop workload is generated once and
 * replayed through all of them in lockstep; a closed-loop one (retry clients) gets a
 * stream per contender, since each limiter's denials cause its own retries.
 */
async function replayAll(
  workload: Workload,
  contenders: readonly Contender[],
  options: ReplayOptions,
  onProgress?: (label: string) => void,
): Promise<ReplayResult[]> {
  const first = workload.open();
  if (!first.closedLoop) {
    onProgress?.(`${workload.name} (${contenders.map((c) => c.name).join(', ')})`);
    return replayLockstep(contenders, first, options);
  }
  const runs: ReplayResult[] = [];
  for (const [i, contender] of contenders.entries()) {
    onProgress?.(`${workload.name} (${contender.name})`);
    runs.push(await replay(contender, i === 0 ? first : workload.open(), options));
  }
  return runs;
}

/** The comparison row of one replay's metrics (also used by `ratelab attack` for a live endpoint). */
export function toRow(
  scenario: string,
  contender: Pick<Contender, 'name' | 'stateBytesPerKey'>,
  m: ReplayMetrics,
  opsPerSec: number | undefined,
): ComparisonRow {
  return {
    scenario,
    algorithm: contender.name,
    offered: m.offered,
    admitted: m.admitted,
    denied: m.denied,
    falseAdmits: m.falseAdmits,
    falseDenials: m.falseDenials,
    errorRate: m.errorRate,
    worstWindowRatio: m.worstWindowRatio,
    fairness: m.fairness,
    bytesPerKey: null,
    stateBytesPerKey: contender.stateBytesPerKey ?? null,
    opsPerSec: opsPerSec ?? null,
    speedRatio: null,
    keys: m.keys,
    labels: m.labels,
    ...(m.limits.length > 1 ? { limits: m.limits } : {}),
  };
}

/** Memory probes, one per distinct (limiter, policy), run one after another in the background. */
class MemoryProbes {
  private readonly samples = new Map<string, Promise<MemorySample | Error>>();
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly keys: number) {}

  start(contender: Contender): void {
    const id = JSON.stringify(contender.probe);
    if (this.samples.has(id)) return;
    const sample = this.chain.then(() =>
      measureMemory(contender.probe, this.keys).catch((error: unknown) =>
        error instanceof Error ? error : new Error(String(error)),
      ),
    );
    this.chain = sample;
    this.samples.set(id, sample);
  }

  async fill(results: WorkloadComparison[], contenders: Contender[][]): Promise<void> {
    for (const [i, result] of results.entries()) {
      for (const [j, row] of result.rows.entries()) {
        const contender = contenders[i]?.[j];
        const sample = contender ? await this.samples.get(JSON.stringify(contender.probe)) : undefined;
        if (sample instanceof Error) {
          const note = `${row.algorithm}: ${sample.message}`;
          if (!result.notes.includes(note)) result.notes.push(note);
        } else if (sample) row.bytesPerKey = sample.bytesPerKey;
      }
    }
  }
}
