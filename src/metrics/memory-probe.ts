import type { Algorithm, Policy, PolicyInput } from '../core/policy.js';
import { runNodeChild, siblingModule } from './child-process.js';

/** What to measure: a built-in algorithm, or a limiter module (see `loadLimiterModule`). */
export type MemoryTarget = { algorithm: Algorithm; policy: PolicyInput } | { module: string; policy: Policy };

/** Bytes per live key, measured in a fresh process after a forced GC. */
export interface MemorySample {
  keys: number;
  /** Heap (compiled code excluded) + external bytes the limiter holds per key, key strings excluded. */
  bytesPerKey: number;
  /** Bytes per key of the key strings themselves (and the array referencing them), measured apart. */
  keyBytesPerKey: number;
  /** The limiter's own account of its typed-array state per key, when it gives one. */
  stateBytesPerKey: number | undefined;
}

/**
 * The probe's Node flags. `--expose-gc`: each weighing follows a forced GC. The other two
 * keep V8 from freeing what no key owns while the limiter is filled, which would show as
 * bytes per key: collector threads that account freed pages while the probe reads the
 * heap (`--single-threaded-gc`), and bytecode discarded from functions that have not run
 * for a few collections, the module loader's among them (`--no-flush-bytecode`).
 */
const MEASURING_FLAGS = ['--expose-gc', '--single-threaded-gc', '--no-flush-bytecode'];

/**
 * Measures the memory a limiter keeps per key: a child process (`--expose-gc`, so nothing
 * else of this process's heap is counted) creates `keys` key strings, measures, feeds one
 * request of `cost` units per key into the limiter (default 1; the limit measures a full
 * key, which is what a sliding log's memory grows with), and measures again after a forced GC.
 */
export async function measureMemory(
  target: MemoryTarget,
  keys: number,
  timeoutMs = 180_000,
  cost = 1,
): Promise<MemorySample> {
  const child = siblingModule(import.meta.url, 'memory-child');
  return runNodeChild<MemorySample>(
    child,
    { target, keys, cost },
    { nodeFlags: MEASURING_FLAGS, timeoutMs, what: 'memory probe' },
  );
}
