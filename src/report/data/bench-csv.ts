import { stringify } from 'csv-stringify/sync';
import type { BenchRun } from '../../bench/bench-run.js';

/** Every figure as CSV (RFC 4180), one row each. */
export function renderCsv(run: BenchRun): string {
  const header = [
    'name',
    'subject',
    'workload',
    'unit',
    'value',
    'ratio',
    'spread',
    'samples',
    'p50_ns',
    'p99_ns',
    'admitted',
    'note',
  ];
  const rows = run.figures.map((f) => [
    f.name,
    f.subject,
    f.workload,
    f.unit,
    f.value,
    f.ratio,
    f.spread,
    f.samples,
    f.p50Ns ?? '',
    f.p99Ns ?? '',
    f.admitted ?? '',
    f.note ?? '',
  ]);
  return stringify([header, ...rows]);
}
