// The child process of measureMemory: prints one JSON line, a MemorySample.
import { getHeapSpaceStatistics } from 'node:v8';
import { median } from 'simple-statistics';
import { ManualClock } from '../core/clock.js';
import { createLimiter } from '../memory/limiter.js';
import { DEFAULT_LIMITER_TIMEOUT_MS, settleWithin } from './limiter-timeout.js';
import type { MemorySample, MemoryTarget } from './memory-probe.js';
import { SWEEP_KEYS } from './memory-sweep.js';

interface Consumer {
  consume(key: string, cost: number): unknown;
  stateBytesPerKey?: number;
}

const {
  target,
  keys: count,
  cost = 1,
} = JSON.parse(process.argv[2] as string) as { target: MemoryTarget; keys: number; cost?: number };
const collect = (globalThis as { gc?: () => void }).gc;
if (!collect) throw new Error('run with --expose-gc');

/**
 * Live heap and external bytes after a forced GC, the code spaces excluded: the machine
 * code V8's compilers emit while a limiter runs varies from run to run by more than a few
 * thousand keys' state, and no key owns it.
 */
function heapBytes(): number {
  collect?.();
  collect?.();
  let bytes = process.memoryUsage().external;
  for (const space of getHeapSpaceStatistics())
    if (!space.space_name.startsWith('code')) bytes += space.space_used_size;
  return bytes;
}

async function build(clock: ManualClock): Promise<Consumer> {
  if ('algorithm' in target) return createLimiter(target.algorithm, target.policy, { clock });
  const { loadLimiterModule } = await import('./external-limiter.js');
  return loadLimiterModule(target.module, target.policy, clock);
}

/** One request of `cost` units for each key, in order. */
async function fill(consumer: Consumer, names: readonly string[]): Promise<void> {
  for (const key of names) {
    const result = consumer.consume(key, cost);
    // A module's promise that never settles is told (LIMITER_TIMEOUT), not an exit 13.
    if (result instanceof Promise)
      await ('module' in target
        ? settleWithin(
            result,
            DEFAULT_LIMITER_TIMEOUT_MS,
            target.module,
            () => `consume(${JSON.stringify(key)}, ${cost})`,
          )
        : result);
  }
}

/**
 * Keys a throwaway limiter is filled with first, so the bytecode, feedback and optimized
 * code of every path the measured fill takes (each growth of the columns and of the key
 * index included) exist before the first weighing: V8 compiles functions on their first
 * calls, into the heap, by amounts that vary between processes, and no key owns them. As
 * many keys as a sweep's probe (capped at the probe's own count): a warm-up of fewer leaves
 * the last growths to be compiled during the measured fill, whose code then shows as bytes
 * per key; past the sweep's count that leftover is spread over enough keys not to show.
 */
const WARM_UP_KEYS = SWEEP_KEYS;

await fill(
  await build(new ManualClock(0)),
  Array.from({ length: Math.min(count, WARM_UP_KEYS) }, (_, i) => `warm:${i}`),
);
/**
 * Fills measured, each into a fresh limiter (the one before it dropped first); the figure
 * is their median. Now and then V8 frees, during one fill, memory that no key owned and that
 * survived the forced GCs before it, which reads as a few bytes per key less; the median
 * leaves that fill out.
 */
const FILLS = 3;

let limiter: Consumer | undefined = await build(new ManualClock(0));
const stateBytesPerKey = limiter.stateBytesPerKey;
const empty = heapBytes();
const keys = Array.from({ length: count }, (_, i) => `key:${i}`);
const withKeys = heapBytes();
const perFill: number[] = [];
for (let i = 0; i < FILLS; i++) {
  limiter ??= await build(new ManualClock(0));
  const before = i === 0 ? withKeys : heapBytes();
  await fill(limiter, keys);
  perFill.push((heapBytes() - before) / count);
  limiter = undefined;
}
const sample: MemorySample = {
  keys: count,
  bytesPerKey: median(perFill),
  keyBytesPerKey: (withKeys - empty) / count,
  stateBytesPerKey,
};
// Keep the keys alive until after the last measurement.
process.stdout.write(`${JSON.stringify({ ...sample, live: keys.length > 0 })}\n`);
