// The child process of measureMemory: prints one JSON line, a MemorySample.
import { ManualClock } from '../core/clock.js';
import { createLimiter } from '../memory/limiter.js';
import { DEFAULT_LIMITER_TIMEOUT_MS, settleWithin } from './limiter-timeout.js';
import type { MemorySample, MemoryTarget } from './memory-probe.js';

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

function heapBytes(): number {
  collect?.();
  collect?.();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

async function build(clock: ManualClock): Promise<Consumer> {
  if ('algorithm' in target) return createLimiter(target.algorithm, target.policy, { clock });
  const { loadLimiterModule } = await import('./external-limiter.js');
  return loadLimiterModule(target.module, target.policy, clock);
}

const clock = new ManualClock(0);
const limiter = await build(clock);
const empty = heapBytes();
const keys = Array.from({ length: count }, (_, i) => `key:${i}`);
const withKeys = heapBytes();
for (const key of keys) {
  const result = limiter.consume(key, cost);
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
const full = heapBytes();
const sample: MemorySample = {
  keys: count,
  bytesPerKey: (full - withKeys) / count,
  keyBytesPerKey: (withKeys - empty) / count,
  stateBytesPerKey: limiter.stateBytesPerKey,
};
// Keep both alive until after the last measurement.
process.stdout.write(`${JSON.stringify({ ...sample, live: keys.length > 0 && limiter !== undefined })}\n`);
