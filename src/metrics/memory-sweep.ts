import { checkPolicy, type Algorithm } from '../core/policy.js';
import { slidingLogBytes } from '../core/sliding-log-size.js';
import { measureMemory } from './memory-probe.js';

/**
 * Keys each probe fills by default: enough that the heap's own noise (what V8 allocates for
 * itself, tens of kB from one process to the next) is about 1 B per key, and a power of two,
 * because the store's columns grow by doubling (5,000 keys would be measured in columns for
 * 8,192, 1.6x the bytes per key). The sliding log's larger limits take fewer, see {@link sweepKeys}.
 */
export const SWEEP_KEYS = 65_536;
/** The fewest keys a probe fills however large the limit: below it heap noise shows per key. */
export const MIN_SWEEP_KEYS = 64;
/**
 * The most bytes of limiter state one probe may build (512 MiB): past it the key count is
 * halved. With the sliding log's largest limit (2^20, 8 MiB a key) that leaves 64 keys.
 */
export const SWEEP_BUDGET_BYTES = 512 * 2 ** 20;
/** Under this slope (bytes per unit of the limit) memory counts as flat, O(1). */
export const FLAT_SLOPE = 0.5;
/** Probes run at once, each a child process (the machines the lab runs on may have two cores). */
const PARALLEL_PROBES = 2;
/** The bound of one probe, ms: the largest (64 keys of 2^20 units) fills in a few seconds. */
const PROBE_TIMEOUT_MS = 120_000;

/** What to sweep: each algorithm at each limit, under one window. */
export interface SweepPlan {
  algorithms: readonly Algorithm[];
  /** Limits, ascending, whole numbers >= 1, each one every algorithm takes (see checkPolicy). */
  limits: readonly number[];
  windowMs: number;
  /** Keys a probe fills at most (default {@link SWEEP_KEYS}); a power of two. */
  keys?: number;
}

/** Bytes per full key of one algorithm at one limit. */
export interface SweepRow {
  algorithm: Algorithm;
  limit: number;
  windowMs: number;
  /** Keys the probe filled (fewer than the plan's where the budget says so, see {@link sweepKeys}). */
  keys: number;
  /** Heap + external bytes per key after one request of `limit` units per key, key strings excluded. */
  bytesPerKey: number;
}

/** How one algorithm's memory per key follows the limit. */
export interface SweepSlope {
  algorithm: Algorithm;
  /** Least-squares slope of bytes per key against the limit, B per unit; null with a single limit. */
  bytesPerUnit: number | null;
  /** `O(1)` when |slope| < {@link FLAT_SLOPE} (or a single limit), else `O(limit)`. */
  growth: 'O(1)' | 'O(limit)';
}

export interface MemorySweep {
  /** In the plan's order: per algorithm, each limit ascending. */
  rows: SweepRow[];
  /** One per algorithm, in the plan's order. */
  slopes: SweepSlope[];
}

/** Called after each probe: how many are done of how many, and the row it measured. */
export type SweepProgress = (done: number, total: number, row: SweepRow) => void;

/**
 * The keys a probe of `algorithm` at `limit` fills: `keys`, halved while the state it would
 * build (the sliding log's full ring per key; the others keep a few bytes) is over
 * {@link SWEEP_BUDGET_BYTES}, never below {@link MIN_SWEEP_KEYS} (nor above `keys`). Stays a power of two when `keys` is one.
 */
export function sweepKeys(algorithm: Algorithm, limit: number, keys = SWEEP_KEYS): number {
  if (algorithm !== 'sliding-log') return keys;
  let fitted = keys;
  while (fitted > MIN_SWEEP_KEYS && fitted * slidingLogBytes(limit) > SWEEP_BUDGET_BYTES) fitted /= 2;
  return fitted;
}

/**
 * Measures memory per FULL key (one request of `limit` units per key: what a sliding log
 * grows with) of each algorithm at each limit, each in a child process (measureMemory),
 * {@link PARALLEL_PROBES} at a time, and fits each algorithm's slope. Every policy is checked
 * before the first probe (`INVALID_POLICY` / `POLICY_TOO_LARGE`).
 */
export async function sweepMemory(plan: SweepPlan, onProgress?: SweepProgress): Promise<MemorySweep> {
  const jobs = plan.algorithms.flatMap((algorithm) =>
    plan.limits.map((limit) => ({ algorithm, limit, keys: sweepKeys(algorithm, limit, plan.keys) })),
  );
  for (const { algorithm, limit } of jobs) checkPolicy({ limit, windowMs: plan.windowMs }, algorithm);
  const rows: SweepRow[] = [];
  for (let i = 0; i < jobs.length; i += PARALLEL_PROBES) {
    const batch = jobs.slice(i, i + PARALLEL_PROBES);
    const samples = await Promise.all(
      batch.map(({ algorithm, limit, keys }) =>
        measureMemory({ algorithm, policy: { limit, windowMs: plan.windowMs } }, keys, PROBE_TIMEOUT_MS, limit),
      ),
    );
    batch.forEach((job, k) => {
      const { bytesPerKey } = samples[k] as { bytesPerKey: number };
      const row = { algorithm: job.algorithm, limit: job.limit, windowMs: plan.windowMs, keys: job.keys, bytesPerKey };
      rows.push(row);
      onProgress?.(rows.length, jobs.length, row);
    });
  }
  return { rows, slopes: plan.algorithms.map((algorithm) => slopeOf(algorithm, rows)) };
}

/** The algorithm's slope over its rows (see {@link SweepSlope}). */
export function slopeOf(algorithm: Algorithm, rows: readonly SweepRow[]): SweepSlope {
  const mine = rows.filter((row) => row.algorithm === algorithm);
  const bytesPerUnit = leastSquaresSlope(mine.map((row) => ({ x: row.limit, y: row.bytesPerKey })));
  const flat = bytesPerUnit === null || Math.abs(bytesPerUnit) < FLAT_SLOPE;
  return { algorithm, bytesPerUnit, growth: flat ? 'O(1)' : 'O(limit)' };
}

/** The least-squares slope of y against x; null for fewer than two distinct x. */
export function leastSquaresSlope(points: readonly { x: number; y: number }[]): number | null {
  const n = points.length;
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.x - meanX) * (p.y - meanY);
    variance += (p.x - meanX) ** 2;
  }
  return n < 2 || variance === 0 ? null : covariance / variance;
}
