import { allowedOf } from '../metrics/external-limiter.js';
import type { Decide } from './subjects.js';
import { BATCH } from './workloads.js';

/** Where a task is in its workload: its virtual time, place in the key sequence, tallies. */
export interface LoopState {
  now: number;
  position: number;
  decided: number;
  admitted: number;
}

/** One iteration of a benchmark task: a batch of decisions, then the clock steps. */
export type Batch = () => void | Promise<void>;

const LOOP = `
  let position = state.position;
  let admitted = 0;
  for (let i = 0; i < size; i++) {
    let result = decide(keys[sequence[position]], 1);
    ASYNC_WAIT
    if (result === true || (result !== false && allowedOf(result, name))) admitted++;
    position = position + 1 === sequence.length ? 0 : position + 1;
  }
  state.position = position;
  state.admitted += admitted;
  state.decided += size;
  state.now += stepMs;
`;

// The loop over a recorded tape: each arrival at its own time and cost; after the last one
// the tape starts again `periodMs` later (`lap` lives in the compiled closure).
const TAPE_LOOP = `
  let position = state.position;
  let admitted = 0;
  for (let i = 0; i < size; i++) {
    state.now = lap + times[position];
    let result = decide(keys[sequence[position]], costs[position]);
    ASYNC_WAIT
    if (result === true || (result !== false && allowedOf(result, name))) admitted++;
    position = position + 1;
    if (position === sequence.length) {
      position = 0;
      lap += periodMs;
    }
  }
  state.position = position;
  state.admitted += admitted;
  state.decided += size;
`;

/**
 * Arrivals with their own times and costs (a replay's sample), replayed in laps: lap `n`
 * decides arrival `i` at `times[i] + n * periodMs`.
 */
export interface Tape {
  /** Virtual time of each arrival, ms. */
  times: Float64Array;
  /** Units each arrival takes. */
  costs: Uint32Array;
  /** Shift of each lap, ms: long enough that every limiter has forgotten the previous lap. */
  periodMs: number;
}

/**
 * Compiles a batch loop for one task. Without a `tape`, every decision costs 1 and the clock
 * steps `stepMs` after each batch; with one, the decisions follow the tape. Each task gets its own compiled copy (as benchmark.js
 * did): a loop shared by every subject would see all their decide functions at one call
 * site, turn megamorphic, and slow down whichever subject happened to run later.
 * `isAsync` makes the loop await each decision in turn (async limiters and peers).
 */
export function compileBatch(options: {
  decide: Decide;
  keys: readonly string[];
  sequence: Uint32Array;
  state: LoopState;
  stepMs: number;
  isAsync: boolean;
  name: string;
  /** Decisions per call (default {@link BATCH}). */
  size?: number;
  /** Times and costs per position of `sequence` (then `stepMs` is not used). */
  tape?: Tape;
}): Batch {
  const wait = options.isAsync
    ? 'if (result !== null && typeof result === "object" && typeof result.then === "function") result = await result;'
    : '';
  const loop = (options.tape ? TAPE_LOOP : LOOP).replace('ASYNC_WAIT', wait);
  const body = `let lap = 0; return ${options.isAsync ? 'async ' : ''}function batch() {${loop}};`;
  const { times, costs, periodMs } = options.tape ?? {};
  // A fresh function per task is the point.
  const factory = new Function(
    'decide',
    'keys',
    'sequence',
    'state',
    'stepMs',
    'size',
    'allowedOf',
    'name',
    'times',
    'costs',
    'periodMs',
    body,
  ) as (...args: unknown[]) => Batch;
  return factory(
    options.decide,
    options.keys,
    options.sequence,
    options.state,
    options.stepMs,
    options.size ?? BATCH,
    allowedOf,
    options.name,
    times,
    costs,
    periodMs,
  );
}
