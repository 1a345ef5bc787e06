import { RatelabError, describeValue } from '../errors.js';
import { checkAlgorithm, checkPolicy, type Algorithm, type Policy } from '../policy.js';
import { HEADER, LAYOUT_VERSION, MAGIC, layout, layoutBytes, type Layout, type LayoutSpec } from './layout.js';
import type { LockingMode } from './locking.js';

/**
 * Everything another thread needs to attach to a shared limiter: plain data and the
 * SharedArrayBuffer, so `postMessage(handle)` (or `workerData`) passes it whole and the
 * buffer is shared, not copied.
 */
export interface SharedLimiterHandle {
  readonly kind: 'ratelab.shared-limiter';
  readonly buffer: SharedArrayBuffer;
  readonly algorithm: Algorithm;
  readonly policy: Policy;
  readonly maxKeys: number;
  readonly slots: number;
  readonly maxKeyBytes: number;
  readonly idleMs: number;
  readonly lockLeaseMs: number;
  readonly locking: LockingMode;
}

/** The layout a handle describes (checking the policy again: a handle may come from anywhere). */
export function specOf(handle: SharedLimiterHandle): LayoutSpec {
  const algorithm = checkAlgorithm(handle.algorithm, 'handle.algorithm');
  return {
    algorithm,
    limits: checkPolicy(handle.policy, algorithm, 'handle.policy'),
    maxKeys: handle.maxKeys,
    slots: handle.slots,
    maxKeyBytes: handle.maxKeyBytes,
  };
}

/** Rows handed out one after another are this far apart: 16 x 4 B or 8 B columns span 1-2 cache lines. */
const ROW_SPREAD = 16;

/**
 * Fresh state in a new buffer: every row free, handed out {@link ROW_SPREAD} apart. Keys
 * inserted together by different threads then keep their state (time, counters) in
 * different cache lines; in insertion order, two threads walking their keys in step wrote
 * the same lines at every decision (false sharing).
 */
export function initialise(view: Layout): void {
  const rows = view.freeRows.length;
  let top = rows;
  // The stack pops from the top: rows 0, 16, 32, ..., then 1, 17, 33, ...
  for (let start = 0; start < ROW_SPREAD; start++) for (let row = start; row < rows; row += ROW_SPREAD) view.freeRows[--top] = row;
  view.header[HEADER.freeRows] = rows;
  view.header[HEADER.version] = LAYOUT_VERSION;
  Atomics.store(view.header, HEADER.magic, MAGIC);
}

/**
 * This thread's views of the buffer a handle names. Throws `INVALID_ARGUMENT` for anything
 * that is not a handle from {@link createSharedLimiter} of this version.
 */
export function openHandle(handle: SharedLimiterHandle): Layout {
  if (typeof handle !== 'object' || handle === null || handle.kind !== 'ratelab.shared-limiter' || !(handle.buffer instanceof SharedArrayBuffer)) {
    throw new RatelabError('INVALID_ARGUMENT', `handle: expected the handle of a shared limiter (limiter.handle), got ${describeValue(handle)}`, { field: 'handle' });
  }
  const spec = specOf(handle);
  const view = handle.buffer.byteLength >= layoutBytes(spec) ? layout(spec, handle.buffer) : undefined;
  if (!view || view.header[HEADER.magic] !== MAGIC || view.header[HEADER.version] !== LAYOUT_VERSION) {
    throw new RatelabError('INVALID_ARGUMENT', 'handle: its buffer is not a shared limiter of this ratelab version', { field: 'handle' });
  }
  return view;
}
