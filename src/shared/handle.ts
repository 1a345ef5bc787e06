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

/** Fresh state in a new (zeroed) buffer: every row unclaimed (src/shared/row-allocator.ts), the stack of freed rows empty. */
export function initialise(view: Layout): void {
  view.header[HEADER.freeRows] = 0;
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
