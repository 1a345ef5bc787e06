import asciichart from 'asciichart';
import type { ChalkInstance } from 'chalk';
import { admittedDiffers } from '../../bench/admitted.js';
import type { BenchRun, Figure } from '../../bench/bench-run.js';
import type { Comparison, ComparisonRow } from '../../bench/compare.js';
import type { GoalCheck } from '../../bench/goals.js';
import { renderTable, rightAligned } from './table.js';
import { barChart, linesOf } from './bar-chart.js';

/** 12345678 -> "12.3M", 45600 -> "45.6k". */
function formatRate(value: number): string {
  if (value >= 1e9) return `${(value / 1e9).toFixed(2)}G`;
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return value.toFixed(0);
}

function percent(fraction: number | undefined, digits = 0): string {
  return fraction === undefined || Number.isNaN(fraction) ? '' : `${(fraction * 100).toFixed(digits)}%`;
}

function figureValue(figure: Figure): string {
  return figure.unit === 'B/key' ? `${figure.value.toFixed(1)} B` : `${formatRate(figure.value)}/s`;
}

/**
 * What the speed table's columns mean, printed above it: `decisions` and `x ref` can order
 * subjects differently, since each subject ran in its own processes at its own moments.
 */
export const SPEED_COLUMNS_NOTE = [
  'decisions = median decisions per CPU second over the rounds (moves with the machine and its load);',
  'ref beside = the reference measured in the same rounds of the same processes; x ref = median of the',
  'per-round ratios to it: read x ref to compare subjects (baselines compare it), not decisions.',
].join('\n');

/** Decisions per second of every subject on every workload, with the ratio to the reference. */
export function renderSpeed(run: BenchRun): string {
  const differs = new Set(admittedDiffers(run));
  const rows = run.figures
    .filter((f) => f.unit === 'decisions/s')
    .sort((a, b) => a.workload.localeCompare(b.workload) || order(a) - order(b))
    .map((f) => [
      f.workload,
      f.subject,
      `${formatRate(f.value)}/s`,
      f.referenceValue === undefined ? '' : `${formatRate(f.referenceValue)}/s`,
      `${f.ratio.toFixed(2)}x`,
      `±${percent(f.spread, 1)}`,
      f.p50Ns === undefined ? '' : f.p50Ns.toFixed(1),
      f.p99Ns === undefined ? '' : f.p99Ns.toFixed(1),
      percent(f.admitted),
      `${f.note ? '*' : ''}${differs.has(f) ? '!' : ''}`,
    ]);
  const columns = [
    { header: 'workload' },
    { header: 'subject' },
    ...rightAligned('decisions', 'ref beside', 'x ref', 'spread', 'p50 ns', 'p99 ns', 'admitted'),
    { header: '' },
  ];
  const starred = run.figures.find((f) => f.note);
  const notes = [
    ...(starred ? [`* ${starred.note}`] : []),
    ...(differs.size > 0
      ? [
          '! admitted a different share than the reference on that workload: other work, so x ref does not compare like for like',
        ]
      : []),
  ];
  return renderTable(columns, rows) + notes.map((note) => `${note}\n`).join('');
}

/** How each peer was configured, one line each ('' without peers). */
export function renderPeers(run: BenchRun): string {
  return (run.peers ?? []).map((peer) => `${peer.name}: ${peer.configuration}\n`).join('');
}

// The reference first, then ratelab's algorithms, then the others, as listed.
function order(figure: Figure): number {
  if (figure.subject === 'reference') return 0;
  return figure.note ? 2 : 1;
}

/** Bytes of state per key (key strings excluded), with the ratio to the reference's. */
export function renderMemory(run: BenchRun): string {
  const rows = run.figures
    .filter((f) => f.unit === 'B/key')
    .map((f) => [f.subject, figureValue(f), `${f.ratio.toFixed(2)}x`]);
  if (rows.length === 0) return '';
  return renderTable([{ header: 'subject' }, ...rightAligned('per key', 'x ref')], rows);
}

/**
 * Bars of each subject's x ref (the median of its per-round ratios to the reference, the
 * speed table's `x ref`), a group per workload in the table's order of subjects, every
 * group on one scale from 0; '' without speed figures.
 */
export function renderSpeedBars(run: BenchRun, paint: ChalkInstance, width: number): string {
  const speed = run.figures.filter((f) => f.unit === 'decisions/s');
  const groups = run.settings.workloads
    .map((workload) => ({
      heading: workload.name,
      bars: speed
        .filter((f) => f.workload === workload.name)
        .sort((a, b) => order(a) - order(b))
        .map((f) => ({ label: f.subject, value: f.ratio })),
    }))
    .filter((group) => group.bars.length > 0);
  if (groups.length === 0) return '';
  const title = paint.bold('speed (x ref per workload; longer is faster)');
  return linesOf(barChart({ title, groups, format: (v) => `${v.toFixed(2)}x`, width, paint }));
}

/** Bars of each subject's bytes per key (the memory table's `per key`), from 0; '' when memory was not measured. */
export function renderMemoryBars(run: BenchRun, paint: ChalkInstance, width: number): string {
  const bars = run.figures.filter((f) => f.unit === 'B/key').map((f) => ({ label: f.subject, value: f.value }));
  if (bars.length === 0) return '';
  const title = paint.bold('memory per key (B; shorter is smaller)');
  return linesOf(barChart({ title, groups: [{ bars }], format: (v) => `${v.toFixed(1)} B`, width, paint }));
}

/**
 * The per-round ratios of each subject on `workload`, as lines: flat lines mean the ratio
 * held from round to round; jagged ones show the noise the regression test has to see past.
 */
export function renderRoundsChart(run: BenchRun, workload: string, subjects: readonly string[]): string {
  const series = run.figures
    .filter((f) => f.workload === workload && subjects.includes(f.subject))
    .map((f) => f.ratioSamples);
  if (series.length === 0 || series.every((s) => s.length < 2)) return '';
  return `${asciichart.plot(series, { height: 8, format: (x) => `${x.toFixed(2)}x`.padStart(6) })}\n`;
}

export function renderGoals(checks: readonly GoalCheck[], paint: ChalkInstance): string {
  const rows = checks.map((check) => [
    check.goal,
    check.target,
    check.actual,
    check.met === undefined ? paint.dim('not measured') : check.met ? paint.green('met') : paint.red('NOT MET'),
  ]);
  return renderTable([{ header: 'goal' }, ...rightAligned('target', 'actual'), { header: '' }], rows);
}

/** Before / after / change of every figure, with the noise test's p-value and the verdict. */
export function renderComparison(comparison: Comparison, paint: ChalkInstance): string {
  const rows = comparison.rows.map((row) => [
    row.name,
    row.before ? `${row.before.ratio.toFixed(3)}x` : '',
    row.after ? `${row.after.ratio.toFixed(3)}x` : '',
    Number.isNaN(row.change) ? '' : `${row.change >= 0 ? '+' : ''}${percent(row.change, 1)}`,
    row.pWorse === undefined ? '' : row.pWorse < 0.001 ? '<0.001' : row.pWorse.toFixed(3),
    verdict(row, paint),
  ]);
  const columns = [
    { header: 'figure' },
    ...rightAligned('before', 'after', 'change', 'p(worse)'),
    { header: 'verdict' },
  ];
  return renderTable(columns, rows);
}

function verdict(row: ComparisonRow, paint: ChalkInstance): string {
  if (row.verdict === 'regressed') return paint.red('REGRESSED');
  if (row.verdict === 'improved') return paint.green('improved');
  return row.verdict;
}
