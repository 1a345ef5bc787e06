import { cpus, totalmem } from 'node:os';
import { RatelabError, type RatelabErrorCode } from '../core/errors.js';
import { runNodeChild, siblingModule } from '../metrics/child-process.js';
import { measureMemory, type MemoryTarget } from '../metrics/memory-probe.js';
import type { Algorithm, Policy } from '../core/policy.js';
import { BENCH_FORMAT, type BenchRun, type Figure } from './bench-run.js';
import type { ChildRequest, ChildResult, HarnessCheck, TaskMeasurement, WorkloadMeasurement } from './measure-child.js';
import { centre } from './statistics.js';
import { measuredSources } from './source-fingerprint.js';
import { packageRoot } from '../config/package-root.js';
import {
  LIMITS_ALGORITHM,
  PEERS,
  followsVirtualClock,
  moduleOf,
  peerConfiguration,
  peerInstalled,
  referenceModule,
  subjectName,
  type PeerName,
  type SubjectSpec,
} from './subjects.js';
import { BATCH, admitsEveryCall, workloadSpecs, type WorkloadSpec } from './workloads.js';

/** What to run. */
export interface BenchPlan {
  quick: boolean;
  algorithms: readonly Algorithm[];
  /** Key counts of the round-robin workloads. */
  keyCounts: readonly number[];
  /** Rounds per task in all, split over `processes`. */
  rounds: number;
  /** Separate processes per subject, whose rounds are pooled. */
  processes: number;
  /** Measuring time per task per round, ms. */
  roundMs: number;
  /** Compare with the peers that are installed. */
  peers: boolean;
  /** Absolute paths of `--limiter` modules. */
  modules: readonly string[];
  /** The bound of each call into a `--limiter` module, ms (default 5 s). */
  limiterTimeoutMs?: number;
  /** Keys of the memory probe (0: no memory figures). */
  memoryKeys: number;
  /** Check tinybench against a plain timed loop. */
  harness: boolean;
}

/** The policy of the memory probe: limit 10, so the sliding log keeps 10 slots per key. */
export const MEMORY_POLICY: Policy = { limit: 10, windowMs: 1000 };

/** Why a subject that does not read the virtual clock reads as it does (bench and compare). */
export const WALL_CLOCK_NOTE =
  'reads wall time, not the virtual clock: it sees the real decision rate, so its admitted share differs';

/** Why a peer's figures compare with the others' although it reads wall time. */
export const PEER_NOTE =
  'a peer: reads wall time, so it runs under a limit no call rate reaches (see "Peers") and only on the workloads where every call is admitted';

/**
 * The names of the figures a run of `plan` makes whatever is installed: the reference and
 * each algorithm on each workload, and (with a memory probe) their bytes per key. A
 * baseline is checked against these before a long run.
 */
export function plannedFigureNames(plan: BenchPlan): string[] {
  const subjects = ['reference', ...plan.algorithms];
  const speedSubjects = [...subjects, ...limitsSubjects(plan).map(subjectName)];
  const speed = workloadSpecs(plan.keyCounts, plan.quick).flatMap((workload) =>
    speedSubjects.map((subject) => `${subject}/${workload.name}`),
  );
  return plan.memoryKeys > 0 ? [...speed, ...subjects.map((subject) => `${subject}/memory`)] : speed;
}

/**
 * The subjects that time what a second limit and a decision listener cost, all through
 * `consume`, when the plan runs {@link LIMITS_ALGORITHM}: one limit (the base of both), two
 * limits, one limit with a no-op listener.
 */
function limitsSubjects(plan: BenchPlan): SubjectSpec[] {
  if (!plan.algorithms.includes(LIMITS_ALGORITHM)) return [];
  return [
    { kind: 'limits', algorithm: LIMITS_ALGORITHM, limits: 1 },
    { kind: 'limits', algorithm: LIMITS_ALGORITHM, limits: 2 },
    { kind: 'listener', algorithm: LIMITS_ALGORITHM },
  ];
}

/** Runs the benchmark: speed (one child process per subject), then memory, then the harness check. */
export async function runBench(plan: BenchPlan, progress: (line: string) => void): Promise<BenchRun> {
  const workloads = workloadSpecs(plan.keyCounts, plan.quick);
  const notes: string[] = [];
  const subjects = await chooseSubjects(plan, notes);
  const figures: Figure[] = [];
  const references = new Map<string, TaskMeasurement[]>();
  const measurements = await measureAll(plan, subjects, workloads, progress, notes);
  for (const { subject, workloads: measured } of measurements) {
    for (const one of measured) {
      figures.push(
        speedFigure(
          subjectName(subject),
          one.workload,
          one.subject,
          one.reference,
          followsVirtualClock(subject) ? undefined : PEER_NOTE,
        ),
      );
      references.set(one.workload, [...(references.get(one.workload) ?? []), one.reference]);
    }
  }
  const harness = measurements.find((m) => m.harness)?.harness;
  figures.unshift(...[...references].map(([workload, tasks]) => referenceFigure(workload, tasks)));
  const peers = await Promise.all(
    subjects.flatMap((subject) => (subject.kind === 'peer' ? [peerEntry(subject.peer)] : [])),
  );
  if (plan.memoryKeys > 0) figures.push(...(await memoryFigures(plan, subjects, progress, notes)));
  return {
    format: BENCH_FORMAT,
    createdAt: new Date().toISOString(),
    machine: machine(),
    settings: {
      quick: plan.quick,
      batch: BATCH,
      rounds: plan.processes * Math.max(2, Math.ceil(plan.rounds / plan.processes)),
      roundMs: plan.roundMs,
      memoryKeys: plan.memoryKeys,
      workloads: workloads.map(({ name, what, keys, policy, stepMs }) => ({ name, what, keys, policy, stepMs })),
    },
    figures,
    ...(peers.length > 0 ? { peers } : {}),
    ...(harness ? { harness } : {}),
    notes,
    ...withSources(measuredSources(packageRoot(import.meta.url))),
  };
}

function withSources(sources: Record<string, string> | undefined): { sources?: Record<string, string> } {
  return sources === undefined ? {} : { sources };
}

async function peerEntry(peer: PeerName): Promise<NonNullable<BenchRun['peers']>[number]> {
  return { name: peer, configuration: await peerConfiguration(peer) };
}

/**
 * Measures every subject in `plan.processes` separate processes, one pass over all subjects
 * after another, and pools their rounds: how a subject's speed differs from one process to
 * the next (JIT decisions, a busy neighbour) is then part of the samples the noise test sees.
 */
async function measureAll(
  plan: BenchPlan,
  subjects: readonly SubjectSpec[],
  workloads: WorkloadSpec[],
  progress: (line: string) => void,
  notes: string[],
): Promise<SubjectMeasurement[]> {
  const rounds = Math.max(2, Math.ceil(plan.rounds / plan.processes));
  const passes: Array<Array<Extract<ChildResult, { ok: true }> | undefined>> = [];
  for (let pass = 0; pass < plan.processes; pass++) {
    const results: Array<Extract<ChildResult, { ok: true }> | undefined> = [];
    for (const [i, subject] of subjects.entries()) {
      progress(`speed ${pass * subjects.length + i + 1}/${plan.processes * subjects.length}: ${subjectName(subject)}`);
      const harness = plan.harness && pass === 0 && i === 0;
      const theirs = subject.kind === 'peer' ? workloads.filter(admitsEveryCall) : workloads;
      results.push(
        await measureSubject(
          { subject, workloads: theirs, rounds, roundMs: plan.roundMs, harness },
          pass === 0 ? notes : [],
        ),
      );
    }
    passes.push(results);
  }
  return subjects.flatMap((subject, i) => {
    const results = passes.map((results) => results[i]);
    if (results.some((result) => result === undefined)) return [];
    const measured = results as Array<Extract<ChildResult, { ok: true }>>;
    return [
      { subject, workloads: poolWorkloads(measured.map((result) => result.workloads)), harness: measured[0]?.harness },
    ];
  });
}

interface SubjectMeasurement {
  subject: SubjectSpec;
  workloads: WorkloadMeasurement[];
  harness: HarnessCheck | undefined;
}

/** One measurement per workload from several processes' measurements of it. */
function poolWorkloads(byProcess: readonly (readonly WorkloadMeasurement[])[]): WorkloadMeasurement[] {
  const first = byProcess[0] ?? [];
  return first.map((one, w) => {
    const all = byProcess.map((measurements) => measurements[w] as WorkloadMeasurement);
    return {
      workload: one.workload,
      reference: poolTask(all.map((m) => m.reference)),
      subject: poolTask(all.map((m) => m.subject)),
    };
  });
}

function poolTask(tasks: readonly TaskMeasurement[]): TaskMeasurement {
  const mean = (pick: (task: TaskMeasurement) => number) =>
    tasks.reduce((sum, task) => sum + pick(task), 0) / tasks.length;
  return {
    rates: tasks.flatMap((task) => task.rates),
    p50Ns: mean((t) => t.p50Ns),
    p99Ns: mean((t) => t.p99Ns),
    admitted: mean((t) => t.admitted),
  };
}

async function chooseSubjects(plan: BenchPlan, notes: string[]): Promise<SubjectSpec[]> {
  const subjects: SubjectSpec[] = plan.algorithms.map((algorithm) => ({ kind: 'algorithm', algorithm }));
  subjects.push(...limitsSubjects(plan));
  if (plan.peers) {
    for (const peer of Object.keys(PEERS) as PeerName[]) {
      if (await peerInstalled(peer)) subjects.push({ kind: 'peer', peer });
      else
        notes.push(
          `${peer} is not installed: skipped (it is a dev dependency of ratelab; npm install -D ${peer} to compare)`,
        );
    }
  }
  for (const path of plan.modules)
    subjects.push({
      kind: 'module',
      path,
      ...(plan.limiterTimeoutMs === undefined ? {} : { timeoutMs: plan.limiterTimeoutMs }),
    });
  return subjects;
}

/**
 * Measures one subject against the reference in its own process (see measure-child.ts);
 * throws what the child reported, or why it failed. The request goes on stdin, since a
 * replay's samples do not fit in an argument.
 */
export async function measureInChild(request: ChildRequest): Promise<Extract<ChildResult, { ok: true }>> {
  const timeoutMs = 120_000 + request.workloads.length * request.rounds * request.roundMs * 4;
  const result = await runNodeChild<ChildResult>(siblingModule(import.meta.url, 'measure-child'), request, {
    timeoutMs,
    what: `benchmark of ${subjectName(request.subject)}`,
    stdin: true,
  });
  if (result.ok) return result;
  throw new RatelabError(result.code as RatelabErrorCode, result.message);
}

/** Measures one subject in its own process. A peer that breaks is skipped with a note. */
async function measureSubject(
  request: ChildRequest,
  notes: string[],
): Promise<Extract<ChildResult, { ok: true }> | undefined> {
  try {
    return await measureInChild(request);
  } catch (error) {
    if (request.subject.kind !== 'peer') throw error;
    notes.push(`${subjectName(request.subject)}: skipped, ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * A subject's decisions/s on a workload, the reference's measured beside it (in the same
 * rounds of the same processes), and its ratio to it: the median of per-round ratios.
 */
export function speedFigure(
  subject: string,
  workload: string,
  measured: TaskMeasurement,
  reference: TaskMeasurement,
  note?: string,
): Figure {
  const ratios = measured.rates.map((rate, round) => rate / (reference.rates[round] as number));
  const { median: ratio, spread } = centre(ratios);
  return {
    name: `${subject}/${workload}`,
    subject,
    workload,
    unit: 'decisions/s',
    better: 'higher',
    value: centre(measured.rates).median,
    referenceValue: centre(reference.rates).median,
    ratio,
    spread,
    samples: ratios.length,
    ratioSamples: ratios,
    p50Ns: measured.p50Ns,
    p99Ns: measured.p99Ns,
    admitted: measured.admitted,
    ...(note ? { note } : {}),
  };
}

/** The reference's own figure: its rate over every round of every subject's process. */
function referenceFigure(workload: string, tasks: readonly TaskMeasurement[]): Figure {
  const rates = tasks.flatMap((task) => task.rates);
  const { median: value, spread } = centre(rates);
  return {
    name: `reference/${workload}`,
    subject: 'reference',
    workload,
    unit: 'decisions/s',
    better: 'higher',
    value,
    ratio: 1,
    spread,
    samples: rates.length,
    ratioSamples: rates.map(() => 1),
    admitted: tasks.reduce((sum, task) => sum + task.admitted, 0) / tasks.length,
  };
}

async function memoryFigures(
  plan: BenchPlan,
  subjects: readonly SubjectSpec[],
  progress: (line: string) => void,
  notes: string[],
): Promise<Figure[]> {
  const targets: Array<[string, MemoryTarget]> = [['reference', { module: referenceModule(), policy: MEMORY_POLICY }]];
  for (const subject of subjects) {
    const name = subjectName(subject);
    if (subject.kind === 'algorithm') targets.push([name, { algorithm: subject.algorithm, policy: MEMORY_POLICY }]);
    else if (subject.kind === 'peer' || subject.kind === 'module')
      targets.push([name, { module: moduleOf(subject), policy: MEMORY_POLICY }]);
  }
  const bytes = new Map<string, number>();
  let done = 0;
  // Two probes at a time: each is its own process, and a heap count is not disturbed by a
  // neighbour the way a timing is.
  await forEachConcurrently(targets, 2, async ([name, target]) => {
    try {
      bytes.set(name, (await measureMemory(target, plan.memoryKeys)).bytesPerKey);
    } catch (error) {
      if (name === 'reference') throw error;
      notes.push(`${name}: memory not measured, ${(error as Error).message}`);
    }
    progress(`memory ${++done}/${targets.length}: ${name}`);
  });
  const reference = bytes.get('reference') as number;
  return targets
    .filter(([name]) => bytes.has(name))
    .map(([name]) => memoryFigure(name, bytes.get(name) as number, reference));
}

/** Runs `work` on every item, at most `width` at a time. */
export async function forEachConcurrently<T>(
  items: readonly T[],
  width: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
}

/** Bytes of state per key (key strings excluded), and the ratio to the reference's. */
function memoryFigure(subject: string, bytesPerKey: number, referenceBytes: number): Figure {
  const ratio = bytesPerKey / referenceBytes;
  return {
    name: `${subject}/memory`,
    subject,
    workload: 'memory',
    unit: 'B/key',
    better: 'lower',
    value: bytesPerKey,
    ratio,
    spread: 0,
    samples: 1,
    ratioSamples: [ratio],
  };
}

function machine(): BenchRun['machine'] {
  const cores = cpus();
  return {
    platform: process.platform,
    arch: process.arch,
    cpu: cores[0]?.model.trim() ?? 'unknown',
    cores: cores.length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    v8: process.versions.v8,
  };
}
