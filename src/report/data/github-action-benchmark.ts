import type { BenchRun, Figure } from '../../bench/bench-run.js';
import type { Comparison, ComparisonRow } from '../../bench/compare.js';
import { roundToSignificant } from '../round.js';

/** Six significant digits: enough for a chart, short in a diff. */
const SIGNIFICANT = 6;

/**
 * One entry of the JSON that benchmark-action/github-action-benchmark reads with
 * `tool: customBiggerIsBetter` or `customSmallerIsBetter`: an array of these (its
 * `BenchmarkResult`). `range` is read as `± <number>` in the value's unit.
 */
export interface ActionBenchmarkEntry {
  name: string;
  unit: string;
  value: number;
  range?: string;
  extra?: string;
}

/**
 * The figures of `run` in github-action-benchmark's custom format. That action takes one
 * direction per file, so `speed` (customBiggerIsBetter) holds every speed figure as its
 * ratio to the reference (unit `x reference`: the number that holds across machines, which
 * CI runners are), and `memory` (customSmallerIsBetter) the bytes per key. `extra` carries
 * the raw rate, latency, admitted share and, with a baseline, this run's verdict.
 */
export function actionBenchmarkEntries(
  run: BenchRun,
  which: 'speed' | 'memory',
  comparison?: Comparison,
): ActionBenchmarkEntry[] {
  const verdicts = new Map((comparison?.rows ?? []).map((row) => [row.name, row]));
  return run.figures
    .filter((f) => (which === 'speed' ? f.unit === 'decisions/s' : f.unit === 'B/key'))
    .map((f) => {
      const extra = [...details(f), ...compared(verdicts.get(f.name))].join('\n');
      if (which === 'memory')
        return { name: f.name, unit: 'B/key', value: roundToSignificant(f.value, SIGNIFICANT), extra };
      // The reference's ratio is 1 by definition (its spread is of its rate): no range.
      const range =
        f.subject === 'reference' ? {} : { range: `± ${roundToSignificant(f.ratio * f.spread, SIGNIFICANT)}` };
      return { name: f.name, unit: 'x reference', value: roundToSignificant(f.ratio, SIGNIFICANT), ...range, extra };
    });
}

function details(f: Figure): string[] {
  if (f.unit === 'B/key') return [`x reference: ${f.ratio.toFixed(3)}`];
  return [
    `decisions/s: ${Math.round(f.value)}${f.referenceValue === undefined ? '' : ` (reference beside it: ${Math.round(f.referenceValue)})`}`,
    `rounds: ${f.samples}`,
    ...(f.p50Ns === undefined || f.p99Ns === undefined
      ? []
      : [`p50 / p99 ns: ${f.p50Ns.toFixed(1)} / ${f.p99Ns.toFixed(1)}`]),
    ...(f.admitted === undefined ? [] : [`admitted: ${(f.admitted * 100).toFixed(1)}%`]),
  ];
}

function compared(row: ComparisonRow | undefined): string[] {
  if (row === undefined || !Number.isFinite(row.change)) return [];
  const p = row.pWorse === undefined ? '' : `, p(worse) ${row.pWorse.toFixed(3)}`;
  return [`vs baseline: ${row.change >= 0 ? '+' : ''}${(row.change * 100).toFixed(1)}%${p}, ${row.verdict}`];
}
