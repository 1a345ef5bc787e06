import type { Arrival } from '../traffic/arrival.js';
import type { TrafficStream } from '../traffic/stream.js';
import { allowedOf, type ExternalResult } from '../external-limiter.js';
import { RatelabError } from '../errors.js';
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
export async function replay(contender: Contender, stream: TrafficStream, options: ReplayOptions): Promise<ReplayResult> {
  const time = { now: 0 };
  const run: Run = {
    time,
    limiter: await contender.create(() => time.now),
    name: contender.name,
    stream,
    recorder: new MetricsRecorder(options),
    closedLoop: stream.closedLoop,
    windowMs: options.windowMs,
    sampleSize: options.sample ?? 0,
    sample: [],
  };
  // Synchronous stretches run in a plain loop; only a Promise makes this function wait.
  for (let waiting = drive(run); waiting !== undefined; waiting = drive(run)) {
    conclude(run, waiting.arrival, await settle(waiting.result, run.name));
  }
  return { metrics: run.recorder.result(), sample: run.sample };
}

/** Everything one replay carries from decision to decision. */
interface Run {
  time: { now: number };
  limiter: Decider;
  name: string;
  stream: TrafficStream;
  recorder: MetricsRecorder;
  closedLoop: boolean;
  windowMs: number;
  sampleSize: number;
  sample: Arrival[];
}

/** Replays arrivals until the stream ends (undefined) or the limiter returns a Promise. */
function drive(run: Run): { arrival: Arrival; result: PromiseLike<unknown> } | undefined {
  const { stream, time, limiter, name } = run;
  for (let arrival = stream.next(); arrival !== undefined; arrival = stream.next()) {
    time.now = arrival.t;
    const result = callLimiter(limiter, arrival, name);
    if (isPromise(result)) return { arrival, result };
    conclude(run, arrival, result);
  }
  return undefined;
}

/** Records the decision on `arrival` and, for closed loops, tells the stream. */
function conclude(run: Run, arrival: Arrival, result: unknown): void {
  const allowed = (result as { allowed?: unknown }).allowed === true || (result !== false && allowedOf(result as ExternalResult, run.name));
  run.recorder.record(arrival.t, arrival.key, arrival.cost, allowed, arrival.id);
  if (run.closedLoop) run.stream.react(allowed, allowed ? 0 : retryAfterOf(result, run.windowMs));
  if (run.sample.length < run.sampleSize) run.sample.push(arrival);
}

function callLimiter(limiter: Decider, arrival: Arrival, name: string): unknown {
  try {
    return limiter.consume(arrival.key, arrival.cost);
  } catch (error) {
    throw thrown(name, error);
  }
}

async function settle(result: PromiseLike<unknown>, name: string): Promise<unknown> {
  try {
    return await result;
  } catch (error) {
    throw thrown(name, error);
  }
}

function thrown(name: string, error: unknown): unknown {
  if (error instanceof RatelabError) return error;
  const why = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return new RatelabError('INVALID_LIMITER_MODULE', `${name}: consume() threw: ${why}`, { field: name, cause: error });
}

function isPromise(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** The limiter's Retry-After in ms; a limiter that gives none is taken to mean one window. */
function retryAfterOf(result: unknown, windowMs: number): number {
  const retry = typeof result === 'object' && result !== null ? (result as { retryAfterMs?: unknown }).retryAfterMs : undefined;
  return typeof retry === 'number' && !Number.isNaN(retry) && retry >= 0 ? retry : windowMs;
}
