import type { Arrival } from '../traffic/arrival.js';
import type { TrafficStream } from '../traffic/stream.js';
import { allowedOf, type ExternalResult } from '../metrics/external-limiter.js';
import { formatDuration } from '../core/duration.js';
import { RatelabError } from '../core/errors.js';
import { isThenable } from '../core/thenable.js';
import { DEFAULT_LIMITER_TIMEOUT_MS, settleWithin } from '../metrics/limiter-timeout.js';
import { MetricsRecorder, type RecorderOptions, type ReplayMetrics } from '../metrics/recorder.js';
import type { Contender, Decider } from './contender.js';

/** Options of {@link replay}. */
export interface ReplayOptions extends RecorderOptions {
  /** Keep the first this many arrivals (default 0), e.g. to time the limiter on them afterwards. */
  sample?: number;
}

/** A replay's metrics, and the first arrivals it saw. */
export interface ReplayResult {
  metrics: ReplayMetrics;
  sample: Arrival[];
}

/**
 * Replays `stream` through a fresh limiter of `contender` on a virtual clock: before each
 * arrival the clock is set to its time, so no wall time passes and nothing sleeps. Each
 * decision goes to the metrics (with the exact oracle's verdict) and, for closed-loop
 * sources, back to the stream. Async limiters are awaited only when they return a
 * Promise, so synchronous ones run without a microtask per decision.
 *
 * Throws `INVALID_LIMITER_MODULE` when a user's limiter throws or returns something
 * without `allowed`; rethrows the stream's errors (a malformed trace line).
 */
export async function replay(
  contender: Contender,
  stream: TrafficStream,
  options: ReplayOptions,
): Promise<ReplayResult> {
  return (await replayLockstep([contender], stream, options))[0] as ReplayResult;
}

/**
 * Arrivals decided per lane before the next lane takes them (see {@link replayLockstep}):
 * a few MB of arrivals at most, and large enough that each limiter reuses its hash table
 * in the cache before the next lane evicts it (small blocks made lockstep slower than five
 * separate replays; bench/lab-replay.ts, figures in docs/lab.md).
 */
const BLOCK = 65_536;

/**
 * Replays one open-loop `stream` through a fresh limiter of each contender in lockstep:
 * each arrival is generated once and judged once by the exact oracle, and every contender
 * decides on it, each on its own virtual clock set to the arrival's time. The results
 * are, per contender, exactly those of {@link replay} on a stream of its own; the
 * stream's work and the oracle's are done once instead of once per contender.
 *
 * Arrivals go through in blocks of {@link BLOCK}: the first contender decides on the whole
 * block, then the next, and so on, then the metrics record the block in time order. A
 * limiter thus runs over a stretch of arrivals with its own state hot in the cache (taking
 * turns per arrival makes the limiters evict each other's state), and memory stays
 * bounded by the block, never O(arrivals). Each limiter sees exactly the calls it would
 * see alone, in order.
 *
 * A closed-loop stream (retry clients) reacts to one limiter's decisions, so it takes
 * exactly one contender (`INVALID_ARGUMENT` otherwise; open one stream per contender),
 * and its arrivals go one at a time: the next one may be a retry of this one. So do the
 * arrivals of a single contender.
 */
export async function replayLockstep(
  contenders: readonly Contender[],
  stream: TrafficStream,
  options: ReplayOptions,
): Promise<ReplayResult[]> {
  const recorder = new MetricsRecorder(options, contenders.length);
  const sample = await driveLockstep(contenders, stream, recorder, options.windowMs, options.sample ?? 0);
  return contenders.map((_, i) => ({ metrics: recorder.result(i), sample }));
}

/**
 * What a replay reports each arrival to (the metrics, or a recorder following one key):
 * per arrival {@link offer} once, {@link decide} per lane, then {@link commit}.
 */
export interface ArrivalObserver {
  offer(t: number, key: string, cost: number, id?: number, label?: string, since?: number, client?: number): unknown;
  decide(lane: number, allowed: boolean): void;
  commit(): void;
}

/**
 * Replays `stream` through fresh limiters of `contenders` exactly as {@link replayLockstep}
 * does, reporting to `observer` instead of the metrics (lane i: contender i).
 */
export async function observeLockstep(
  contenders: readonly Contender[],
  stream: TrafficStream,
  observer: ArrivalObserver,
  windowMs: number,
): Promise<void> {
  await driveLockstep(contenders, stream, observer, windowMs, 0);
}

/** The replay itself; returns the first `sampleSize` arrivals. */
async function driveLockstep(
  contenders: readonly Contender[],
  stream: TrafficStream,
  recorder: ArrivalObserver,
  windowMs: number,
  sampleSize: number,
): Promise<Arrival[]> {
  const closedLoop = stream.closedLoop;
  if (closedLoop && contenders.length !== 1) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `a closed-loop stream reacts to one limiter's decisions: replay it through one contender at a time, not ${contenders.length}`,
    );
  }
  const lanes: Lane[] = [];
  for (const contender of contenders) {
    const time = { now: 0 };
    const limiter = await contender.create(() => time.now);
    // A closed loop needs the whole Decision (its Retry-After drives the retries).
    const admits = closedLoop ? undefined : limiter.admits?.bind(limiter);
    const callTimeout = contender.callTimeout ?? { timeoutMs: DEFAULT_LIMITER_TIMEOUT_MS, module: contender.name };
    lanes.push({ time, limiter, admits, name: contender.name, callTimeout });
  }
  // One limiter gains nothing from blocks: it takes the plain loop (see driveOne), which is
  // faster than blocks for a single replay (bench/lab-replay.ts; figures in docs/lab.md).
  const blockSize = closedLoop || lanes.length === 1 ? 1 : BLOCK;
  const run: Run = {
    lanes,
    stream,
    closedLoop,
    windowMs,
    recorder,
    sampleSize,
    sample: [],
    blockSize,
    block: [],
    size: 0,
    verdicts: new Uint8Array(blockSize * lanes.length),
    lane: lanes.length,
    at: 0,
  };
  // Synchronous stretches run in a plain (optimisable) loop; only a Promise makes this function wait.
  for (let waiting = drive(run); waiting !== undefined; waiting = drive(run)) {
    const lane = run.lanes[run.lane] as Lane;
    conclude(run, run.lane, run.at, await settle(waiting, lane, run.block[run.at] as Arrival));
    run.at += 1;
  }
  return run.sample;
}

/** One contender's limiter in a replay, on its own clock. */
interface Lane {
  time: { now: number };
  limiter: Decider;
  /** The limiter's `admits` shortcut when this replay needs only that (open loop), else undefined. */
  admits: ((key: string, cost: number) => boolean) | undefined;
  name: string;
  /** The bound of one async decision, and the module it names (see `Contender.callTimeout`). */
  callTimeout: { timeoutMs: number; module: string };
}

/** Everything a replay carries from decision to decision. */
interface Run {
  lanes: Lane[];
  stream: TrafficStream;
  closedLoop: boolean;
  windowMs: number;
  recorder: ArrivalObserver;
  sampleSize: number;
  sample: Arrival[];
  /** Arrivals per block, and the block being decided: `size` arrivals of `block`. */
  blockSize: number;
  block: Arrival[];
  size: number;
  /** 1 where lane i admitted arrival k of the block, at `i * blockSize + k`. */
  verdicts: Uint8Array;
  /** Where the deciding stands: lane `lane` is next to decide on arrival `at` of the block. */
  lane: number;
  at: number;
}

/** Decides until the stream ends (undefined) or a limiter returns a Promise (returned). */
function drive(run: Run): PromiseLike<unknown> | undefined {
  return run.blockSize === 1 ? driveOne(run) : driveBlocks(run);
}

/**
 * One contender, one arrival at a time (a single replay, or a closed loop): the plain
 * loop, with no block to go through. A Promise leaves its arrival in the block, to be
 * recorded when this resumes.
 */
function driveOne(run: Run): PromiseLike<unknown> | undefined {
  const { stream, block } = run;
  const lane = run.lanes[0] as Lane;
  if (run.size > 0) recordArrival(run, block[0] as Arrival, 0);
  run.size = 0;
  for (let arrival = stream.next(); arrival !== undefined; arrival = stream.next()) {
    lane.time.now = arrival.t;
    const result = callLimiter(lane, arrival);
    if (isThenable(result)) {
      block[0] = arrival;
      run.size = 1;
      run.lane = 0;
      run.at = 0;
      return result;
    }
    conclude(run, 0, 0, result);
    recordArrival(run, arrival, 0);
  }
  return undefined;
}

/**
 * Decides from where `run` stands, lane after lane over each block, recording each block
 * once every lane has decided on it, until the stream ends (undefined) or a limiter
 * returns a Promise: then returns it, with `run` standing at that lane and arrival.
 */
function driveBlocks(run: Run): PromiseLike<unknown> | undefined {
  const { lanes, block } = run;
  for (;;) {
    if (run.lane >= lanes.length) {
      if (run.size > 0) record(run);
      fill(run);
      if (run.size === 0) return undefined;
      run.lane = 0;
      run.at = 0;
    }
    const i = run.lane;
    const lane = lanes[i] as Lane;
    for (let k = run.at; k < run.size; k++) {
      const arrival = block[k] as Arrival;
      lane.time.now = arrival.t;
      const result = callLimiter(lane, arrival);
      if (isThenable(result)) {
        run.at = k;
        return result;
      }
      conclude(run, i, k, result);
    }
    run.lane = i + 1;
    run.at = 0;
  }
}

/** Takes the next block of arrivals from the stream (none at its end). */
function fill(run: Run): void {
  let size = 0;
  for (let arrival; size < run.blockSize && (arrival = run.stream.next()) !== undefined; size++)
    run.block[size] = arrival;
  run.size = size;
}

/** Keeps lane `i`'s decision on arrival `k` of the block and, for closed loops, tells the stream. */
function conclude(run: Run, i: number, k: number, result: unknown): void {
  const allowed = isAllowed(result, (run.lanes[i] as Lane).name);
  run.verdicts[i * run.blockSize + k] = allowed ? 1 : 0;
  if (run.closedLoop) {
    const retryAfter = allowed ? 0 : retryAfterOf(result);
    run.stream.react(allowed, retryAfter ?? run.windowMs, retryAfter !== undefined);
  }
}

/** Records the block's arrivals, in time order, with every lane's decision on each. */
function record(run: Run): void {
  for (let k = 0; k < run.size; k++) recordArrival(run, run.block[k] as Arrival, k);
}

/** Records `arrival`, number `k` of the block, with every lane's decision on it. */
function recordArrival(run: Run, arrival: Arrival, k: number): void {
  const { recorder, verdicts, blockSize } = run;
  recorder.offer(arrival.t, arrival.key, arrival.cost, arrival.id, arrival.label, arrival.since, arrival.tag);
  for (let i = 0; i < run.lanes.length; i++) recorder.decide(i, verdicts[i * blockSize + k] === 1);
  recorder.commit();
  if (run.sample.length < run.sampleSize) run.sample.push(arrival);
}

function isAllowed(result: unknown, name: string): boolean {
  return (
    result === true ||
    (result as { allowed?: unknown }).allowed === true ||
    (result !== false && allowedOf(result as ExternalResult, name))
  );
}

function callLimiter(lane: Lane, arrival: Arrival): unknown {
  try {
    return lane.admits === undefined
      ? lane.limiter.consume(arrival.key, arrival.cost)
      : lane.admits(arrival.key, arrival.cost);
  } catch (error) {
    throw thrown(lane.name, error);
  }
}

/**
 * Awaits an async decision (only those reach here: synchronous ones never pay for a timer),
 * bounded by the lane's `callTimeout`: a promise that never settles is `LIMITER_TIMEOUT`
 * naming the module and the call, not a process that ends with exit 13 and no word.
 */
async function settle(result: PromiseLike<unknown>, lane: Lane, arrival: Arrival): Promise<unknown> {
  const { timeoutMs, module } = lane.callTimeout;
  const call = () =>
    `consume(${JSON.stringify(arrival.key)}, ${arrival.cost}) at ${formatDuration(arrival.t)} (virtual time)`;
  try {
    return await settleWithin(result, timeoutMs, module, call);
  } catch (error) {
    throw thrown(lane.name, error);
  }
}

function thrown(name: string, error: unknown): unknown {
  if (error instanceof RatelabError) return error;
  const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new RatelabError('INVALID_LIMITER_MODULE', `${name}: consume() threw: ${why}`, { field: name, cause: error });
}

/** The limiter's Retry-After in ms, or undefined when it gives none (then taken to mean one window, unless the client backs off). */
function retryAfterOf(result: unknown): number | undefined {
  const retry =
    typeof result === 'object' && result !== null ? (result as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof retry === 'number' && !Number.isNaN(retry) && retry >= 0 ? retry : undefined;
}
