import { RatelabError, describeValue } from '../core/errors.js';
import { ALGORITHMS, checkPolicy, type Algorithm, type Policy } from '../core/policy.js';
import { checkAlgorithm } from '../core/names.js';
import {
  HEADER,
  LAYOUT_VERSION,
  MAGIC,
  PREAMBLE_BYTES,
  layout,
  layoutBytes,
  preamble,
  type Layout,
  type LayoutSpec,
} from './layout.js';
import type { LockingMode } from './locking.js';

const LOCKING_MODES: readonly LockingMode[] = ['per-key', 'global'];

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
 * that is not a handle from {@link createSharedLimiter} of this version, as its creator
 * made it: every field is checked against the description its creator wrote in the buffer.
 */
export function openHandle(handle: SharedLimiterHandle): Layout {
  if (
    typeof handle !== 'object' ||
    handle === null ||
    handle.kind !== 'ratelab.shared-limiter' ||
    !(handle.buffer instanceof SharedArrayBuffer)
  ) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `handle: expected the handle of a shared limiter (limiter.handle), got ${describeValue(handle)}`,
      { field: 'handle' },
    );
  }
  checkDescription(handle);
  const spec = specOf(handle); // a handle that matches its description holds the creator's valid policy
  if (layoutBytes(spec) !== handle.buffer.byteLength)
    throw refused('handle', 'its buffer is not laid out as its creator described it');
  return layout(spec, handle.buffer);
}

/** Throws unless the buffer is a shared limiter's of this version and describes exactly `handle`. */
function checkDescription(handle: SharedLimiterHandle): void {
  const { byteLength } = handle.buffer;
  const { header, description } =
    byteLength >= PREAMBLE_BYTES && byteLength % 8 === 0
      ? preamble(handle.buffer)
      : { header: undefined, description: undefined };
  if (
    !header ||
    !description ||
    Atomics.load(header, HEADER.magic) !== MAGIC ||
    header[HEADER.version] !== LAYOUT_VERSION
  ) {
    throw refused('handle', 'its buffer is not a shared limiter of this ratelab version');
  }
  DESCRIBED.forEach((entry, at) => {
    const value = entry.read(handle);
    const stored = description[at] as number;
    if (!Object.is(encode(entry, value), stored)) {
      throw refused(
        `handle.${entry.field}`,
        `${describeValue(value)}, but its buffer was created with ${describeValue(decode(entry, stored))}`,
      );
    }
  });
}

function refused(field: string, why: string): RatelabError {
  return new RatelabError(
    'INVALID_ARGUMENT',
    `${field}: ${why}; pass the handle of a shared limiter (limiter.handle) unchanged`,
    { field },
  );
}

function policyOf(handle: SharedLimiterHandle): Partial<Policy> {
  return typeof handle.policy === 'object' && handle.policy !== null ? handle.policy : {};
}

/** One field of the handle the buffer's description holds, as a number (`names`: the index of a name). */
interface Described {
  readonly field: string;
  readonly read: (handle: SharedLimiterHandle) => unknown;
  readonly names?: readonly string[];
}

/**
 * What the buffer's description holds, in order: every field of the handle that fixes the
 * layout (algorithm, policy, sizes), what a decision depends on (idleMs: a shorter one would
 * drop keys still in use) and how the threads exclude each other (locking, lockLeaseMs: a
 * thread locking otherwise, or taking locks over sooner, breaks mutual exclusion). A field
 * added here needs a new {@link LAYOUT_VERSION}.
 */
const DESCRIBED: readonly Described[] = [
  { field: 'algorithm', read: (handle) => handle.algorithm, names: ALGORITHMS },
  { field: 'policy.limit', read: (handle) => policyOf(handle).limit },
  { field: 'policy.windowMs', read: (handle) => policyOf(handle).windowMs },
  { field: 'policy.burst', read: (handle) => policyOf(handle).burst },
  { field: 'maxKeys', read: (handle) => handle.maxKeys },
  { field: 'slots', read: (handle) => handle.slots },
  { field: 'maxKeyBytes', read: (handle) => handle.maxKeyBytes },
  { field: 'idleMs', read: (handle) => handle.idleMs },
  { field: 'lockLeaseMs', read: (handle) => handle.lockLeaseMs },
  { field: 'locking', read: (handle) => handle.locking, names: LOCKING_MODES },
  { field: 'buffer.byteLength', read: (handle) => handle.buffer.byteLength },
];

/**
 * A field as the description holds it. Absent (`burst`): NaN, which the check compares with
 * Object.is. Anything but a number (NaN included) is -Infinity, which no creator writes.
 */
function encode(entry: Described, value: unknown): number {
  if (entry.names) return entry.names.indexOf(value as string);
  if (value === undefined) return Number.NaN;
  return typeof value === 'number' && !Number.isNaN(value) ? value : -Infinity;
}

function decode(entry: Described, stored: number): unknown {
  if (entry.names) return entry.names[stored];
  return Number.isNaN(stored) ? undefined : stored;
}

/** Writes the buffer's description from the creator's handle (once, before the handle leaves the thread). */
export function describeBuffer(handle: SharedLimiterHandle): void {
  const { description } = preamble(handle.buffer);
  DESCRIBED.forEach((entry, at) => {
    description[at] = encode(entry, entry.read(handle));
  });
}
