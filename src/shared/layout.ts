import { createLimitsMeter, type Meter } from '../algorithms/index.js';
import { RatelabError } from '../core/errors.js';
import { MAX_LIMITS } from '../core/limit-list.js';
import type { Algorithm, NamedLimits } from '../core/policy.js';
import { LINE_BYTES, SharedColumns, lineAligned } from './shared-columns.js';

/** The header's 32-bit words. */
export const HEADER = {
  magic: 0,
  version: 1,
  /** Last member id handed out (each attached limiter takes one, for its lock tokens). */
  members: 2,
  /** Free rows on the row stack. */
  freeRows: 3,
  /** The row stack's lock. */
  rowLock: 4,
  /** The one lock of `locking: 'global'`. */
  globalLock: 5,
  /** Where the next sweep for idle keys starts. */
  sweep: 6,
} as const;

const HEADER_WORDS = 16;
/** The header's first word, "RLSH" in ASCII: marks a buffer as a shared limiter's (checked when a handle is attached). */
export const MAGIC = 0x52_4c_53_48;
/** The buffer layout's version, in the header: a thread attaches only to a buffer of the same version. */
export const LAYOUT_VERSION = 5;

/**
 * Rows are handed out in chunks of this many consecutive rows (src/shared/row-allocator.ts):
 * with columns on line boundaries, a chunk's entries fill whole lines of every column (one
 * line of a 4-byte column, two of an 8-byte one), so rows of two chunks never share one.
 */
export const ROW_CHUNK = 16;
/** Lanes of the row allocator (at most; no more than chunks): each attached limiter claims one (the rest share the free-row stack). */
export const ROW_LANES = 64;
/** 32-bit words of a lane: one line, so no two lanes' words share one. */
export const LANE_WORDS = LINE_BYTES / 4;
/**
 * The row allocator's words: counters in the first line, then lane `i` in line `i + 1`
 * (its current chunk + 1, 0 for none; then 1 once a limiter owns it).
 */
export const ALLOC = {
  /** Rows holding live keys. */
  live: 0,
  /** Chunks claimed so far (the next one to claim, while below the chunk count). */
  nextChunk: 1,
} as const;

/**
 * A table slot is four 32-bit words side by side, so a lookup's hash check, lock and row
 * read touch one cache line (as four separate columns they touched three).
 */
export const SLOT = {
  /** The lock for changing what the slot holds (inserting a key into it, evicting it); decisions do not take it. */
  lock: 0,
  /** The lock that serialises inserting keys whose probe starts here. */
  bucket: 1,
  /** The key's hash (never 0), or 0 for a free slot. */
  hash: 2,
  /** The row holding the key's bytes, time, algorithm state and lock. */
  row: 3,
} as const;
/** 32-bit words per table slot (16 bytes): the four fields of {@link SLOT}. */
export const SLOT_WORDS = 4;

/** What fixes the layout of the buffer: every thread computes the same views from it. */
export interface LayoutSpec {
  readonly algorithm: Algorithm;
  /** Every limit a key's row holds columns for, in order (one for a single policy; a composite's parts). */
  readonly policies: readonly NamedLimits[];
  /** Rows of algorithm state: the most live keys. */
  readonly maxKeys: number;
  /** Hash table slots: a power of two, at least 2 x maxKeys. */
  readonly slots: number;
  /** UTF-8 bytes kept per key. */
  readonly maxKeyBytes: number;
}

/** Views of one shared limiter's buffer, as one thread sees it. */
export interface Layout {
  readonly header: Int32Array;
  /** {@link SLOT_WORDS} words per table slot, laid out as {@link SLOT} says. */
  readonly slots: Int32Array;
  /** The stack of freed rows (its height is `header[freeRows]`); rows never used come from chunks. */
  readonly freeRows: Int32Array;
  /** The row allocator's counters and lanes, laid out as {@link ALLOC} says. */
  readonly alloc: Int32Array;
  /** Per chunk of {@link ROW_CHUNK} rows: how many of its rows were handed out (it may run past the chunk's size). */
  readonly chunkFill: Int32Array;
  /** Per row: the lock guarding its state (the one lock a decision takes). */
  readonly rowLocks: Int32Array;
  /** Per row: the key's length in UTF-8 bytes. */
  readonly keyLengths: Int32Array;
  /** Per row: `maxKeyBytes` bytes of key. */
  readonly keyBytes: Uint8Array;
  /** Per row: the key's latest time, in the limiter's clock (never decreases while the key lives). */
  readonly touched: Float64Array;
  /** The algorithm over the rows' columns in the buffer: for several limits a CompositeMeter, each part its own columns of the same rows. */
  readonly meter: Meter;
}

interface Region {
  readonly name: 'slots' | 'freeRows' | 'alloc' | 'chunkFill' | 'rowLocks' | 'keyLengths' | 'touched' | 'keyBytes';
  readonly type: {
    new (buffer: SharedArrayBuffer, offset: number, length: number): Int32Array | Float64Array | Uint8Array;
    BYTES_PER_ELEMENT: number;
  };
  readonly per: 'slot' | 'row' | 'keyByte' | 'chunk' | 'lanes';
}

const REGIONS: readonly Region[] = [
  { name: 'slots', type: Int32Array, per: 'slot' },
  { name: 'freeRows', type: Int32Array, per: 'row' },
  { name: 'alloc', type: Int32Array, per: 'lanes' },
  { name: 'chunkFill', type: Int32Array, per: 'chunk' },
  { name: 'rowLocks', type: Int32Array, per: 'row' },
  { name: 'keyLengths', type: Int32Array, per: 'row' },
  { name: 'touched', type: Float64Array, per: 'row' },
  { name: 'keyBytes', type: Uint8Array, per: 'keyByte' },
];

function lengthOf(region: Region, spec: LayoutSpec): number {
  switch (region.per) {
    case 'slot':
      return spec.slots * SLOT_WORDS;
    case 'row':
      return spec.maxKeys;
    case 'keyByte':
      return spec.maxKeys * spec.maxKeyBytes;
    case 'chunk':
      return Math.ceil(spec.maxKeys / ROW_CHUNK);
    case 'lanes':
      // More lanes than chunks could never all hold one.
      return (Math.min(ROW_LANES, Math.ceil(spec.maxKeys / ROW_CHUNK)) + 1) * LANE_WORDS;
  }
}

/**
 * Lays the regions out (header, table, rows, then the meter's columns), each from a cache
 * line boundary, over `buffer`, or only measures them without one. Returns the views and
 * the total bytes.
 */
function lay(spec: LayoutSpec, buffer: SharedArrayBuffer | undefined): { views: Partial<Layout>; bytes: number } {
  const views: Record<string, unknown> = {};
  let offset = lineAligned(HEADER_WORDS * 4);
  if (buffer) views.header = new Int32Array(buffer, 0, HEADER_WORDS);
  for (const region of REGIONS) {
    const length = lengthOf(region, spec);
    if (buffer) views[region.name] = new region.type(buffer, offset, length);
    offset = lineAligned(offset + length * region.type.BYTES_PER_ELEMENT);
  }
  const columns = new SharedColumns(buffer, offset);
  const meter = createLimitsMeter(spec.policies, columns);
  // Measured before the meter lays its columns out: a size far past the bound is refused
  // from arithmetic alone (the sliding log cannot even address that many timestamps).
  if (!buffer) checkSize(spec, columns.end + spec.maxKeys * meter.bytesPerSlot + DESCRIPTION_BYTES);
  meter.resize(spec.maxKeys);
  views.meter = meter;
  return { views: views as Partial<Layout>, bytes: columns.end + DESCRIPTION_BYTES };
}

/**
 * Bytes of buffer a limiter of `spec` needs. Throws `POLICY_TOO_LARGE` naming them when
 * that is over {@link MAX_BUFFER_BYTES}.
 */
export function layoutBytes(spec: LayoutSpec): number {
  const bytes = lay(spec, undefined).bytes;
  checkSize(spec, bytes);
  return bytes;
}

/** This thread's views of `buffer`, laid out for `spec`. */
export function layout(spec: LayoutSpec, buffer: SharedArrayBuffer): Layout {
  return lay(spec, buffer).views as Layout;
}

/**
 * The last bytes of the buffer: its description, which its creator writes once so that a
 * thread attaching can check a handle against the memory it points at (see handle.ts):
 * 8-byte numbers (what fixes the layout and the locks), then the limits as text (the
 * handle's `policy` as JSON: a single policy, or the list of a composite with every entry's
 * name and algorithm), behind its length in bytes. At the end, so that it is found from the
 * buffer's length alone, before the layout is known.
 */
const DESCRIPTION_NUMBERS = 16;
/**
 * Room for the limits' text: {@link MAX_LIMITS} entries of at most about 160 bytes each (a
 * 64-character name, the longest algorithm name, numbers of up to 16 digits), with margin.
 */
export const POLICY_TEXT_BYTES = MAX_LIMITS * 256;
const DESCRIPTION_BYTES = DESCRIPTION_NUMBERS * 8 + 4 + POLICY_TEXT_BYTES + 4;

/** A buffer shorter than this is no shared limiter's: it has no room for a header and a description. */
export const PREAMBLE_BYTES = HEADER_WORDS * 4 + DESCRIPTION_BYTES;

/** The parts of a buffer's description: its numbers, and the limits' text (`policyLength` bytes of `policyText`, UTF-8). */
export interface Description {
  readonly numbers: Float64Array;
  readonly policyLength: Uint32Array;
  readonly policyText: Uint8Array;
}

/** The header words and the description of `buffer` (at least {@link PREAMBLE_BYTES} long, a multiple of 8), before its layout is known. */
export function preamble(buffer: SharedArrayBuffer): { header: Int32Array; description: Description } {
  const start = buffer.byteLength - DESCRIPTION_BYTES;
  const text = start + DESCRIPTION_NUMBERS * 8;
  return {
    header: new Int32Array(buffer, 0, HEADER_WORDS),
    description: {
      numbers: new Float64Array(buffer, start, DESCRIPTION_NUMBERS),
      policyLength: new Uint32Array(buffer, text, 1),
      policyText: new Uint8Array(buffer, text + 4, POLICY_TEXT_BYTES),
    },
  };
}

/**
 * The largest buffer a shared limiter takes: 1 GiB. It is allocated whole when the limiter
 * is created and never grows, so a size past this is refused then, naming what it would
 * need, rather than left to the engine (a RangeError) or to a host short of memory.
 */
export const MAX_BUFFER_BYTES = 2 ** 30;

function checkSize(spec: LayoutSpec, bytes: number): void {
  if (bytes <= MAX_BUFFER_BYTES) return;
  const perKey = Math.ceil(bytes / spec.maxKeys);
  const logs = spec.policies.filter((entry) => entry.algorithm === 'sliding-log');
  const log =
    logs.length > 0
      ? `; the shared sliding log keeps room for limit (${logs.map((entry) => entry.limit).join(' + ')}) timestamps of 8 B for every key (sliding-counter keeps 8 B whatever the limit)`
      : '';
  const what = spec.policies.length === 1 ? spec.algorithm : `${spec.policies.length} limits`;
  throw new RatelabError(
    'POLICY_TOO_LARGE',
    `shared limiter: ${spec.maxKeys} keys (maxKeys) of ${what} needs ${bytes} bytes (${gibibytes(bytes)} GiB, about ${perKey} bytes a key with maxKeyBytes ${spec.maxKeyBytes}) of shared memory up front; it takes at most ${MAX_BUFFER_BYTES} bytes (1 GiB): lower maxKeys or maxKeyBytes${log}`,
    { field: 'maxKeys' },
  );
}

function gibibytes(bytes: number): string {
  return (bytes / 2 ** 30).toFixed(1);
}
