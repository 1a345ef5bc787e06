import type { BenchRun } from '../../bench/bench-run.js';
import { ALPHA, type Comparison, type Verdict } from '../../bench/compare.js';

/** One row of the comparison with a baseline, as `--json` writes it (ratios to the reference). */
export interface ComparisonEntry {
  figure: string;
  unit: string;
  /** The baseline's ratio to the reference; null for a figure new in this run. */
  before: number | null;
  /** This run's ratio; null for a figure the baseline had and this run did not measure. */
  after: number | null;
  /** after / before - 1 (-0.2: the ratio dropped 20%); null when either is missing. */
  change: number | null;
  /** One-sided Mann-Whitney U p-value that the figure got worse; null with a single sample (memory). */
  p: number | null;
  verdict: Verdict;
}

/**
 * What `--json` writes: the run (format `ratelab-bench/1`, readable as a baseline), and with
 * `--baseline` the comparison, figure by figure, the gate's settings and its overall verdict
 * (`fail` when any figure regressed, as the exit code 1 says). A baseline reader ignores the
 * comparison fields.
 */
export interface BenchJson extends BenchRun {
  comparison?: ComparisonEntry[];
  gate?: { baseline: string; maxRegression: number; alpha: number; regressions: number };
  verdict?: 'pass' | 'fail';
}

/** The `--json` document of `run`, with `comparison` against the baseline at `baselinePath` when given. */
export function benchJson(run: BenchRun, comparison?: Comparison, baselinePath?: string): BenchJson {
  if (comparison === undefined) return run;
  return {
    ...run,
    comparison: comparison.rows.map((row) => ({
      figure: row.name,
      unit: row.unit,
      before: row.before?.ratio ?? null,
      after: row.after?.ratio ?? null,
      change: Number.isFinite(row.change) ? row.change : null,
      p: row.pWorse ?? null,
      verdict: row.verdict,
    })),
    gate: {
      baseline: baselinePath ?? '',
      maxRegression: comparison.maxRegression,
      alpha: ALPHA,
      regressions: comparison.regressions,
    },
    verdict: comparison.regressions > 0 ? 'fail' : 'pass',
  };
}
