import { describe, expect, it } from 'vitest';
import {
  BATCH,
  admitsEveryCall,
  keySequence,
  shortCount,
  workloadKeys,
  workloadSequence,
  workloadSpecs,
} from '../../src/bench/workloads.js';

/** Requests each key is offered per window, on average, by a round-robin workload. */
function offeredPerWindow(spec: { keys: number; stepMs: number; policy: { windowMs: number } }): number {
  return (BATCH / spec.keys) * (spec.policy.windowMs / spec.stepMs);
}

describe('workloads', () => {
  it('quick keeps the two the speed goals are stated on', () => {
    expect(workloadSpecs([10_000, 1_000_000], true).map((w) => w.name)).toEqual(['hot-key', 'keys-1e4']);
  });

  it('a full run adds 1e6 keys, a Zipf mix and a half-denied mix', () => {
    expect(workloadSpecs([10_000, 1_000_000], false).map((w) => w.name)).toEqual([
      'hot-key',
      'keys-1e4',
      'keys-1e6',
      'zipf-1e5',
      'denied-half',
    ]);
  });

  it.each([1_000, 10_000, 100_000, 1_000_000])(
    'round robin over %i keys offers half the limit, in whole ms',
    (keys) => {
      const spec = workloadSpecs([keys], true)[1];
      expect(spec).toBeDefined();
      expect(Number.isInteger(spec?.stepMs)).toBe(true);
      expect(offeredPerWindow(spec as NonNullable<typeof spec>) / (spec?.policy.limit as number)).toBeCloseTo(0.5, 10);
    },
  );

  it('the hot key offers half its limit; denied-half offers twice', () => {
    const [hot, , , , denied] = workloadSpecs([10_000, 1_000_000], false);
    expect((BATCH * 1000) / (hot?.stepMs as number) / (hot?.policy.limit as number)).toBe(0.5);
    expect(offeredPerWindow(denied as NonNullable<typeof denied>) / (denied?.policy.limit as number)).toBe(2);
  });

  it('peers run the workloads where every call is admitted, and only those', () => {
    const admitting = workloadSpecs([1_000, 10_000, 1_000_000], false).filter(admitsEveryCall);
    expect(admitting.map((w) => w.name)).toEqual(['hot-key', 'keys-1e3', 'keys-1e4', 'keys-1e6']);
  });

  it('round robin visits every key in turn', () => {
    const spec = workloadSpecs([10_000], true)[1] as NonNullable<ReturnType<typeof workloadSpecs>[number]>;
    const sequence = workloadSequence(spec);
    expect(sequence.length).toBe(10_000);
    expect([sequence[0], sequence[1], sequence[9_999]]).toEqual([0, 1, 9_999]);
    expect(workloadKeys(spec)[42]).toBe('key:42');
  });

  it('the Zipf draw is the same on every run and its popularity falls as 1/rank', () => {
    const zipf = { count: 1000, prefix: 'key:', pick: 'zipf' as const, exponent: 1 };
    const first = keySequence(zipf, 200_000, 7);
    expect(keySequence(zipf, 200_000, 7)).toEqual(first);
    const counts = new Array<number>(1000).fill(0);
    for (const rank of first) counts[rank] = (counts[rank] as number) + 1;
    const harmonic = Array.from({ length: 1000 }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b);
    expect((counts[0] as number) / 200_000).toBeCloseTo(1 / harmonic, 2);
    expect((counts[0] as number) / (counts[9] as number)).toBeGreaterThan(8);
    expect((counts[0] as number) / (counts[9] as number)).toBeLessThan(12);
  });

  it.each([
    [1, '1'],
    [10_000, '1e4'],
    [1_000_000, '1e6'],
    [25_000, '25000'],
  ])('shortCount(%i) = %s', (n, text) => expect(shortCount(n)).toBe(text));
});
