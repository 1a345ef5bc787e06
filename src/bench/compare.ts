import { RatelabError } from '../core/errors.js';
import type { BenchRun, Figure } from './bench-run.js';
import { mannWhitneyLess } from './statistics.js';

/** Significance level of the noise test: compare.py's default. */
export const ALPHA = 0.05;

/**
 * - `regressed`: worse beyond the threshold and beyond the noise (fails the gate);
 * - `within noise`: worse beyond the threshold, but not significantly;
 * - `within threshold`: significantly worse, but by less than the threshold;
 * - `improved`: better beyond the threshold and significantly; `unchanged`: anything else;
 * - `new` / `gone`: in only one of the two runs.
 */
export type Verdict = 'regressed' | 'within noise' | 'within threshold' | 'improved' | 'unchanged' | 'new' | 'gone';

/** One figure of a baseline next to the same figure now. */
export interface ComparisonRow {
  name: string;
  unit: Figure['unit'];
  before: Figure | undefined;
  after: Figure | undefined;
  /** after.ratio / before.ratio - 1 (so -0.2 is a 20% drop of the ratio to the reference). */
  change: number;
  /** One-sided Mann-Whitney p-value that the change went the worse way; undefined with one sample. */
  pWorse: number | undefined;
  verdict: Verdict;
}

export interface Comparison {
  rows: ComparisonRow[];
  regressions: number;
  maxRegression: number;
}

/**
 * Compares a run with a baseline, figure by figure, on the ratio to the reference task
 * (raw rates differ between machines and moments; the ratio is what should hold).
 * A figure has regressed only when both hold:
 * - its ratio moved the worse way by more than `maxRegression` (a fraction: 0.1 = 10%), and
 * - the move is beyond the noise: a one-sided Mann-Whitney U test over the per-round ratios
 *   of both runs gives p < {@link ALPHA}.
 * A figure resting on one sample (a memory probe: heap after forced GC, which repeats to
 * within a fraction of a byte) has no noise estimate and is judged by the threshold alone.
 */
export function compareRuns(before: BenchRun, after: BenchRun, maxRegression: number): Comparison {
  const earlier = new Map(before.figures.map((figure) => [figure.name, figure]));
  const rows: ComparisonRow[] = after.figures.map((figure) =>
    compareFigure(earlier.get(figure.name), figure, maxRegression),
  );
  const now = new Set(after.figures.map((figure) => figure.name));
  for (const figure of before.figures) {
    if (!now.has(figure.name))
      rows.push({
        name: figure.name,
        unit: figure.unit,
        before: figure,
        after: undefined,
        change: NaN,
        pWorse: undefined,
        verdict: 'gone',
      });
  }
  return { rows, regressions: rows.filter((row) => row.verdict === 'regressed').length, maxRegression };
}

function compareFigure(before: Figure | undefined, after: Figure, maxRegression: number): ComparisonRow {
  const row = { name: after.name, unit: after.unit, before, after };
  if (before === undefined || before.ratio === 0) return { ...row, change: NaN, pWorse: undefined, verdict: 'new' };
  const change = after.ratio / before.ratio - 1;
  // Orient so that `worse` > 0 means the figure got worse, whichever way is better.
  const worse = after.better === 'higher' ? -change : change;
  const testable = before.ratioSamples.length > 1 && after.ratioSamples.length > 1;
  const pWorse = testable ? pOfWorse(before, after) : undefined;
  const pBetter = testable ? pOfWorse(after, before) : undefined;
  const significant = (p: number | undefined) => p === undefined || p < ALPHA;
  let verdict: Verdict = 'unchanged';
  if (worse > maxRegression) verdict = significant(pWorse) ? 'regressed' : 'within noise';
  else if (worse > 0 && testable && significant(pWorse)) verdict = 'within threshold';
  else if (-worse > maxRegression && significant(pBetter)) verdict = 'improved';
  return { ...row, change, pWorse, verdict };
}

/** p-value that `after` is worse than `before` (lower if higher is better, and vice versa). */
function pOfWorse(before: Figure, after: Figure): number {
  return after.better === 'higher'
    ? mannWhitneyLess(after.ratioSamples, before.ratioSamples)
    : mannWhitneyLess(before.ratioSamples, after.ratioSamples);
}

/** Parses `--max-regression`: a percentage such as `10%` (0 to 100). */
export function parseThreshold(text: string, field = '--max-regression'): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*%\s*$/.exec(text);
  const percent = match ? Number(match[1]) : NaN;
  if (!(percent >= 0 && percent < 100)) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `${field}: expected a percentage from 0% to 99%, such as 10%, got ${JSON.stringify(text)}`,
      { field },
    );
  }
  return percent / 100;
}
