import { stringify } from 'csv-stringify/sync';
import type { FidelityReport } from '../../fidelity/suite.js';

/** CSV columns, stable for scripts: one row per case; `details` is the case's details as JSON. */
export const FIDELITY_CSV_COLUMNS = [
  'id',
  'claim',
  'source',
  'scenario',
  'expected',
  'measured',
  'verdict',
  'reproduced',
  'details',
] as const;

/** The cases as CSV (`reproduced` empty when only reported or skipped). */
export function fidelityCsv(report: FidelityReport): string {
  const rows = report.cases.map((c) => [
    c.id,
    c.claim,
    c.source,
    c.scenario,
    c.expected,
    c.measured,
    c.verdict,
    c.reproduced === null ? '' : String(c.reproduced),
    JSON.stringify(c.details),
  ]);
  return stringify([[...FIDELITY_CSV_COLUMNS], ...rows]);
}
