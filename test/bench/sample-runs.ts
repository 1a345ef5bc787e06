// Fixed sample data for the bench tests: runs built by hand, no timing involved.
import { BENCH_FORMAT, type BenchRun, type Figure } from '../../src/bench/bench-run.js';

/** A speed figure whose per-round ratios are `ratios`. */
export function speed(name: string, ratios: number[]): Figure {
  const [subject = name, workload = 'hot-key'] = name.split('/');
  const sorted = [...ratios].sort((a, b) => a - b);
  const ratio = sorted[Math.floor(sorted.length / 2)] as number;
  return {
    name,
    subject,
    workload,
    unit: 'decisions/s',
    better: 'higher',
    value: ratio * 1e8,
    ratio,
    spread: 0.02,
    samples: ratios.length,
    ratioSamples: ratios,
    p50Ns: 10,
    p99Ns: 20,
    admitted: 1,
  };
}

/** A memory figure (one probe). */
export function memory(subject: string, bytes: number, referenceBytes = 100): Figure {
  const ratio = bytes / referenceBytes;
  return {
    name: `${subject}/memory`,
    subject,
    workload: 'memory',
    unit: 'B/key',
    better: 'lower',
    value: bytes,
    ratio,
    spread: 0,
    samples: 1,
    ratioSamples: [ratio],
  };
}

export function run(figures: Figure[]): BenchRun {
  return {
    format: BENCH_FORMAT,
    createdAt: '2026-01-01T00:00:00.000Z',
    machine: { platform: 'linux', arch: 'x64', cpu: 'test cpu', cores: 2, memoryGiB: 24, node: 'v20.0.0', v8: '11' },
    settings: {
      quick: true,
      batch: 1000,
      rounds: 7,
      roundMs: 40,
      memoryKeys: 1_000_000,
      workloads: [{ name: 'hot-key', what: 'one key', keys: 1, policy: { limit: 500_000, windowMs: 1000 }, stepMs: 4 }],
    },
    figures,
    notes: [],
  };
}

/** Seven rounds around `centre`, spread by ±`jitter` in a fixed pattern. */
export function rounds(centre: number, jitter: number): number[] {
  return [-3, -2, -1, 0, 1, 2, 3].map((step) => centre * (1 + (step * jitter) / 3));
}
