import { describe, expect, it } from 'vitest';
import { measureMemory } from '../../src/metrics/memory-probe.js';
import { SWEEP_KEYS } from '../../src/metrics/memory-sweep.js';

describe('measureMemory', () => {
  // What V8 allocates for itself varies by tens of kB from one process to the next (at 4,096
  // keys, GCRA's figure moved between 49 and 95 B); the sweep fills enough keys that this is
  // about 1 B per key, so its flat lines are flat.
  it('gives one figure for one limiter at the sweep key count, probe after probe, within 4 B per key', async () => {
    const probes = [];
    for (let i = 0; i < 4; i++)
      probes.push(
        await measureMemory({ algorithm: 'gcra', policy: { limit: 100, windowMs: 60_000 } }, SWEEP_KEYS, 60_000, 100),
      );
    const bytes = probes.map((probe) => probe.bytesPerKey);
    expect(Math.max(...bytes) - Math.min(...bytes)).toBeLessThan(4);
  });
});
