// The child process of the speed benchmark: measures one subject against the reference on
// every workload and prints one JSON line, a ChildResult. One process per subject, so no
// subject runs on code that V8 compiled and specialised for another.
import { median } from 'simple-statistics';
import { Bench } from 'tinybench';
import { RatelabError } from '../errors.js';
import { compileBatch, isThenable, type Batch, type LoopState } from './batch-loop.js';
import { createDecide, subjectName, type SubjectSpec } from './subjects.js';
import { BATCH, workloadKeys, workloadSequence, type WorkloadSpec } from './workloads.js';

/** What the parent asks of a child. */
export interface ChildRequest {
  subject: SubjectSpec;
  workloads: WorkloadSpec[];
  rounds: number;
  /** Measuring time per task per round, in ms. */
  roundMs: number;
  /** Also check tinybench against a plain timed loop (on the first workload). */
  harness?: boolean;
}

/** One task's measurements on one workload. */
export interface TaskMeasurement {
  /** Decisions per second, one value per round. */
  rates: number[];
  /** Per-decision latency percentiles in ns: batch time / batch size, over all rounds' batches. */
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
  | { ok: true; workloads: WorkloadMeasurement[]; harness?: HarnessCheck }
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

async function createTask(subject: SubjectSpec, spec: WorkloadSpec, keys: string[], sequence: Uint32Array, size = BATCH): Promise<Task> {
  const state: LoopState = { now: 0, position: 0, decided: 0, admitted: 0 };
  const decide = await createDecide(subject, spec.policy, () => state.now);
  // One decision tells whether the subject answers with promises; every subject gets it.
  const first = decide(keys[sequence[0] as number] as string);
  const isAsync = isThenable(first);
  if (isAsync) await first;
  const stepMs = (spec.stepMs * size) / BATCH;
  const batch = compileBatch({ decide, keys, sequence, state, stepMs, isAsync, name: subjectName(subject), size });
  return { name: subjectName(subject), batch, state, size, latencies: [], rates: [] };
}

/** Runs `task` for a full pass of its key sequence (every key live) and at least 300 batches. */
async function warmUp(task: Task, sequenceLength: number): Promise<void> {
  const batches = Math.max(300, Math.ceil(sequenceLength / BATCH));
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
  const sorted = Float64Array.from(task.latencies).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
  return { rates: task.rates, p50Ns: at(0.5), p99Ns: at(0.99), admitted: task.state.admitted / task.state.decided };
}

async function measureWorkload(request: ChildRequest, spec: WorkloadSpec): Promise<WorkloadMeasurement> {
  const keys = workloadKeys(spec);
  const sequence = workloadSequence(spec);
  const reference = await createTask({ kind: 'reference' }, spec, keys, sequence);
  const subject = await createTask(request.subject, spec, keys, sequence);
  await warmUp(reference, sequence.length);
  await warmUp(subject, sequence.length);
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

async function checkHarness(spec: WorkloadSpec, roundMs: number): Promise<HarnessCheck> {
  const keys = workloadKeys(spec);
  const sequence = workloadSequence(spec);
  const batched = await createTask({ kind: 'reference' }, spec, keys, sequence);
  const single = await createTask({ kind: 'reference' }, spec, keys, sequence, 1);
  await warmUp(batched, sequence.length);
  const loop = median(Array.from({ length: 5 }, () => plainLoopRate(batched, roundMs)));
  for (let round = 0; round < 5; round++) await measureRound([batched, single], roundMs);
  return { workload: spec.name, batchedVsLoop: median(batched.rates) / loop, unbatchedVsLoop: median(single.rates) / loop };
}

async function main(request: ChildRequest): Promise<ChildResult> {
  try {
    const workloads: WorkloadMeasurement[] = [];
    for (const spec of request.workloads) workloads.push(await measureWorkload(request, spec));
    const first = request.workloads[0];
    if (request.harness && first) return { ok: true, workloads, harness: await checkHarness(first, request.roundMs) };
    return { ok: true, workloads };
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

const result = await main(JSON.parse(process.argv[2] as string) as ChildRequest);
process.stdout.write(`${JSON.stringify(result)}\n`);
// Peers may leave timers behind; the measurements are out.
process.exit(0);
