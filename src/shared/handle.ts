import { RatelabError, describeValue } from '../core/errors.js';
import { ALGORITHMS, type Algorithm, type LimitSpec, type Policy } from '../core/policy.js';
import { checkAlgorithm } from '../core/names.js';
import { checkLimitList } from '../core/limit-list.js';
import {
  HEADER,
  LAYOUT_VERSION,
  MAGIC,
  PREAMBLE_BYTES,
  layout,
  layoutBytes,
  preamble,
  type Description,
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
  /** One policy, or (a composite) every limit with its `name` and `algorithm` filled in. */
  readonly policy: Policy | readonly LimitSpec[];
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
    policies: checkLimitList(algorithm, handle.policy, 'handle.policy'),
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
    const stored = description.numbers[at] as number;
    if (!Object.is(encode(entry, value), stored)) {
      throw refused(
        `handle.${entry.field}`,
        `${describeValue(value)}, but its buffer was created with ${describeValue(decode(entry, stored))}`,
      );
    }
  });
  checkPolicyText(handle.policy, readPolicy(description));
}

/** The fields of a policy or limit the description holds (`name` and `algorithm` only for a composite's entries). */
const POLICY_FIELDS = ['algorithm', 'name', 'limit', 'windowMs', 'burst'] as const;

/** Throws naming the first field of `given` (the handle's policy) that is not the one the buffer was created with. */
function checkPolicyText(given: unknown, stored: Policy | readonly LimitSpec[]): void {
  const shape = (policy: unknown) =>
    Array.isArray(policy) ? `a list of ${policy.length} limits` : 'one policy { limit, windowMs, burst? }';
  if (
    Array.isArray(given) !== Array.isArray(stored) ||
    (Array.isArray(stored) && stored.length !== (given as unknown[]).length)
  )
    throw refused('handle.policy', `${shape(given)}, but its buffer was created with ${shape(stored)}`);
  const pairs = Array.isArray(stored)
    ? stored.map((entry, i) => [entry, (given as unknown[])[i], `handle.policy[${i}]`] as const)
    : [[stored, given, 'handle.policy'] as const];
  for (const [mine, theirs, where] of pairs) {
    const fields = fieldsOf(theirs);
    for (const field of POLICY_FIELDS) {
      const value = fields[field];
      if (!Object.is(value, (mine as LimitSpec)[field]))
        throw refused(
          `${where}.${field}`,
          `${describeValue(value)}, but its buffer was created with ${describeValue((mine as LimitSpec)[field])}`,
        );
    }
  }
}

function fieldsOf(entry: unknown): Partial<Record<(typeof POLICY_FIELDS)[number], unknown>> {
  return typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : {};
}

const utf8 = { encoder: new TextEncoder(), decoder: new TextDecoder() };

/** The policy the buffer's creator wrote in its description (JSON; trusted once the magic and version match). */
export function readPolicy(description: Description): Policy | readonly LimitSpec[] {
  const length = description.policyLength[0] as number;
  // TextDecoder takes no view of shared memory: the bytes are copied out first.
  return JSON.parse(utf8.decoder.decode(description.policyText.slice(0, length))) as Policy | readonly LimitSpec[];
}

function refused(field: string, why: string): RatelabError {
  return new RatelabError(
    'INVALID_ARGUMENT',
    `${field}: ${why}; pass the handle of a shared limiter (limiter.handle) unchanged`,
    { field },
  );
}

/** One field of the handle the buffer's description holds, as a number (`names`: the index of a name). */
interface Described {
  readonly field: string;
  readonly read: (handle: SharedLimiterHandle) => unknown;
  readonly names?: readonly string[];
}

/**
 * What the buffer's description holds as numbers, in order (the policy is its text, see
 * {@link readPolicy}): every field of the handle that fixes the layout (algorithm, sizes), what a decision depends on (idleMs: a shorter one would
 * drop keys still in use) and how the threads exclude each other (locking, lockLeaseMs: a
 * thread locking otherwise, or taking locks over sooner, breaks mutual exclusion). A field
 * added here needs a new {@link LAYOUT_VERSION}.
 */
const DESCRIBED: readonly Described[] = [
  { field: 'algorithm', read: (handle) => handle.algorithm, names: ALGORITHMS },
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
    description.numbers[at] = encode(entry, entry.read(handle));
  });
  const text = utf8.encoder.encode(JSON.stringify(handle.policy));
  // Checked limits fit with room to spare (see POLICY_TEXT_BYTES): `set` would throw a RangeError otherwise.
  description.policyText.set(text);
  description.policyLength[0] = text.length;
}
