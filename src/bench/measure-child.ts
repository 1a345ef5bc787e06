// The child process of the speed benchmark: measures one subject against the reference on
// every workload and prints one JSON line, a ChildResult. One process per subject, so no
// subject runs on code that V8 compiled and specialised for another.
import { median } from 'simple-statistics';
import { percentiles } from '../metrics/percentile.js';
import { Bench } from 'tinybench';
import { RatelabError } from '../core/errors.js';
import type { Policy } from '../core/policy.js';
import { isThenable } from '../core/thenable.js';
import { compileBatch, type Batch, type LoopState, type Tape } from './batch-loop.js';
import { sampleTape, type SampleSpec } from './sample-workload.js';
import { callTimeoutOf, createDecide, subjectName, type SubjectSpec } from './subjects.js';
import { settleWithin } from '../metrics/limiter-timeout.js';
import { BATCH, workloadKeys, workloadSequence, type WorkloadSpec } from './workloads.js';

/** What the parent asks of a child (as its one argument, or on stdin when large). */
export interface ChildRequest {
  subject: SubjectSpec;
  /** Synthetic workloads (`ratelab bench`) or replays' samples (`ratelab compare`). */
  workloads: Array<WorkloadSpec | SampleSpec>;
  rounds: number;
  /** Measuring time per task per round, in ms. */
  roundMs: number;
  /** Batches each task runs before it is measured (default 300, at least a full pass of its keys). */
  warmUpBatches?: number;
  /** Also check tinybench against a plain timed loop (on the first workload). */
  harness?: boolean;
  /** Also report whether the subject reads the clock it is given (on the first workload). */
  checkClock?: boolean;
}

/** One task's measurements on one workload. */
export interface TaskMeasurement {
  /** Decisions per second, one value per round. */
  rates: number[];
  /** Per-decision latency percentiles in ns (nearest rank, see `percentiles`): batch time / batch size, over all rounds' batches. */
  p50Ns: number;
  p99Ns: number;
  /** Fraction of measured decisions that were admitted. */
  admitted: number;
}

export interface WorkloadMeasurement {
  workload: string;
  reference: TaskMeasurement;
  subject: TaskMeasurement;
}

/**
 * The harness check, on the reference: tinybench with batches, and with one decision per
 * iteration, each as a fraction of the rate a plain timed loop of batches measures.
 */
export interface HarnessCheck {
  workload: string;
  batchedVsLoop: number;
  unbatchedVsLoop: number;
}

export type ChildResult =
  | { ok: true; workloads: WorkloadMeasurement[]; harness?: HarnessCheck; readsClock?: boolean }
  | { ok: false; code: string; message: string };

interface Task {
  name: string;
  batch: Batch;
  /** Decisions per batch. */
  size: number;
  state: LoopState;
  latencies: number[];
  rates: number[];
}

/** What a task replays: keys in order, and either a clock step per batch or a tape. */
interface Course {
  policy: Policy;
  keys: string[];
  sequence: Uint32Array;
  /** Virtual ms per batch of {@link BATCH} (synthetic workloads). */
  stepMs: number;
  tape?: Tape;
}

function courseOf(spec: WorkloadSpec | SampleSpec): Course {
  if (isSample(spec)) return { policy: spec.policy, keys: spec.keys, stepMs: 0, ...sampleTape(spec) };
  return { policy: spec.policy, keys: workloadKeys(spec), sequence: workloadSequence(spec), stepMs: spec.stepMs };
}

function isSample(spec: WorkloadSpec | SampleSpec): spec is SampleSpec {
  return (spec as Partial<SampleSpec>).kind === 'sample';
}

async function createTask(subject: SubjectSpec, course: Course, size = BATCH): Promise<Task> {
  const { keys, sequence, tape } = course;
  const state: LoopState = { now: tape ? (tape.times[0] as number) : 0, position: 0, decided: 0, admitted: 0 };
  const decide = await createDecide(subject, course.policy, () => state.now);
  // One decision tells whether the subject answers with promises; every subject gets it.
  const first = decide(keys[sequence[0] as number] as string, tape ? (tape.costs[0] as number) : 1);
  const isAsync = isThenable(first);
  if (isAsync) await bounded(subject, first as PromiseLike<unknown>, () => 'its first consume()');
  const stepMs = (course.stepMs * size) / BATCH;
  const batch = compileBatch({
    decide,
    keys,
    sequence,
    state,
    stepMs,
    isAsync,
    name: subjectName(subject),
    size,
    tape,
  });
  return {
    name: subjectName(subject),
    batch: isAsync ? boundedBatch(subject, batch, size) : batch,
    state,
    size,
    latencies: [],
    rates: [],
  };
}

/** `promise`, bounded as the subject's calls are (a user's module), else as it is. */
function bounded<T>(subject: SubjectSpec, promise: PromiseLike<T>, call: () => string): PromiseLike<T> {
  return subject.kind === 'module'
    ? settleWithin(promise, callTimeoutOf(subject) as number, subject.path, call)
    : promise;
}

/**
 * An async batch bounded as a whole, by the bound of one call: a decision that never
 * settles stops the batch in that time, and one timer per batch of {@link BATCH}, not per
 * decision, leaves the module's figure as it was.
 */
function boundedBatch(subject: SubjectSpec, batch: Batch, size: number): Batch {
  if (subject.kind !== 'module') return batch;
  return () => bounded(subject, batch() as Promise<void>, () => `a consume() of a batch of ${size}`) as Promise<void>;
}

/**
 * Whether `subject` reads the clock it is given while deciding: one that does not (a peer
 * reading wall time, a module calling Date.now) meets the real decision rate, not the
 * workload's, so it admits a different share than in the replay.
 */
async function readsClock(subject: SubjectSpec, course: Course): Promise<boolean> {
  let reads = 0;
  const decide = await createDecide(subject, course.policy, () => {
    reads += 1;
    return course.tape ? (course.tape.times[0] as number) : 0;
  });
  const before = reads; // a factory may read the clock once to start
  for (let i = 0; i < Math.min(course.sequence.length, 10); i++) {
    const result = decide(course.keys[course.sequence[i] as number] as string, 1);
    if (isThenable(result)) await bounded(subject, result as PromiseLike<unknown>, () => 'consume()');
  }
  return reads > before;
}

/** Runs `task` for a full pass of its key sequence (every key live) and at least `least` batches. */
async function warmUp(task: Task, sequenceLength: number, least = 300): Promise<void> {
  const batches = Math.max(least, Math.ceil(sequenceLength / BATCH));
  for (let i = 0; i < batches; i++) await task.batch();
  task.state.decided = 0;
  task.state.admitted = 0;
}

/**
 * Runs each task for `roundMs` and records its rate as decisions per second of CPU time this
 * process used meanwhile (all its threads, so the garbage collection a subject causes is
 * counted). Wall time would also count every time slice a neighbour on a shared machine
 * took in the middle of a batch: on a busy 2-core machine that doubled some rates' spread.
 * tinybench's per-batch wall times give the latency percentiles.
 */
async function measureRound(tasks: readonly Task[], roundMs: number): Promise<void> {
  for (const task of tasks) {
    const bench = new Bench({ time: roundMs, iterations: 5, warmup: false, retainSamples: true, throws: true });
    bench.add(task.name, task.batch);
    const decided = task.state.decided;
    const cpu = process.cpuUsage();
    await bench.run();
    const used = process.cpuUsage(cpu);
    const result = bench.tasks[0]?.result;
    if (result?.state !== 'completed') throw new Error(`${task.name}: the measurement ended ${result?.state}`);
    task.rates.push(((task.state.decided - decided) * 1e6) / (used.user + used.system));
    for (const ms of result.latency.samples ?? []) task.latencies.push((ms * 1e6) / task.size);
  }
}

function summarise(task: Task): TaskMeasurement {
  const [p50Ns, p99Ns] = percentiles(task.latencies, [0.5, 0.99]) as [number, number];
  return { rates: task.rates, p50Ns, p99Ns, admitted: task.state.admitted / task.state.decided };
}

async function measureWorkload(request: ChildRequest, spec: WorkloadSpec | SampleSpec): Promise<WorkloadMeasurement> {
  const course = courseOf(spec);
  const reference = await createTask({ kind: 'reference' }, course);
  const subject = await createTask(request.subject, course);
  await warmUp(reference, course.sequence.length, request.warmUpBatches);
  await warmUp(subject, course.sequence.length, request.warmUpBatches);
  // Alternate which goes first so slow drifts of the machine hit both alike.
  for (let round = 0; round < request.rounds; round++) {
    await measureRound(round % 2 === 0 ? [reference, subject] : [subject, reference], request.roundMs);
  }
  return { workload: spec.name, reference: summarise(reference), subject: summarise(subject) };
}

/** Decisions per CPU second of `task` run by a plain loop around its batches, as the rounds count them. */
function plainLoopRate(task: Task, ms: number): number {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let batches = 0;
  while (performance.now() - start < ms) {
    for (let i = 0; i < 100; i++) void task.batch();
    batches += 100;
  }
  const used = process.cpuUsage(cpu);
  return (batches * BATCH * 1e6) / (used.user + used.system);
}

async function checkHarness(spec: WorkloadSpec | SampleSpec, roundMs: number): Promise<HarnessCheck> {
  const course = courseOf(spec);
  const batched = await createTask({ kind: 'reference' }, course);
  const single = await createTask({ kind: 'reference' }, course, 1);
  await warmUp(batched, course.sequence.length);
  const loop = median(Array.from({ length: 5 }, () => plainLoopRate(batched, roundMs)));
  for (let round = 0; round < 5; round++) await measureRound([batched, single], roundMs);
  return {
    workload: spec.name,
    batchedVsLoop: median(batched.rates) / loop,
    unbatchedVsLoop: median(single.rates) / loop,
  };
}

async function main(request: ChildRequest): Promise<ChildResult> {
  try {
    const first = request.workloads[0];
    const clockCheck =
      request.checkClock && first ? { readsClock: await readsClock(request.subject, courseOf(first)) } : {};
    const workloads: WorkloadMeasurement[] = [];
    for (const spec of request.workloads) workloads.push(await measureWorkload(request, spec));
    if (request.harness && first)
      return { ok: true, workloads, harness: await checkHarness(first, request.roundMs), ...clockCheck };
    return { ok: true, workloads, ...clockCheck };
  } catch (error) {
    if (error instanceof RatelabError) return { ok: false, code: error.code, message: error.message };
    // A user's module that throws is bad input, not a bug of ratelab.
    if (request.subject.kind === 'module') {
      const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
      return { ok: false, code: 'INVALID_LIMITER_MODULE', message: `${request.subject.path}: consume() threw: ${why}` };
    }
    throw error;
  }
}

const result = await main(JSON.parse(process.argv[2] ?? (await readStdin())) as ChildRequest);
process.stdout.write(`${JSON.stringify(result)}\n`);
// Peers may leave timers behind; the measurements are out.
// eslint-disable-next-line no-restricted-properties -- a child process's own script, not a command: it ends itself once its result is written
process.exit(0);

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
