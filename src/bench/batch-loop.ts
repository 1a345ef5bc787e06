import { allowedOf } from '../external-limiter.js';
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
    let result = decide(keys[sequence[position]]);
    ASYNC_WAIT
    if (result === true || (result !== false && allowedOf(result, name))) admitted++;
    position = position + 1 === sequence.length ? 0 : position + 1;
  }
  state.position = position;
  state.admitted += admitted;
  state.decided += size;
  state.now += stepMs;
`;

/**
 * Compiles a batch loop for one task. Each task gets its own compiled copy (as benchmark.js
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
}): Batch {
  const wait = options.isAsync ? 'if (result !== null && typeof result === "object" && typeof result.then === "function") result = await result;' : '';
  const body = `return ${options.isAsync ? 'async ' : ''}function batch() {${LOOP.replace('ASYNC_WAIT', wait)}};`;
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- a fresh function per task is the point
  const factory = new Function('decide', 'keys', 'sequence', 'state', 'stepMs', 'size', 'allowedOf', 'name', body) as (...args: unknown[]) => Batch;
  return factory(options.decide, options.keys, options.sequence, options.state, options.stepMs, options.size ?? BATCH, allowedOf, options.name);
}

/** Whether `value` is a promise-like (a decision that must be awaited). */
export function isThenable(value: unknown): boolean {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}
