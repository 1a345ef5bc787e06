import { stringify } from 'csv-stringify/sync';
import type { FidelityReport } from '../fidelity/suite.js';
import { JSON_FORMAT_VERSION } from './json-format.js';
import { renderTable } from './table.js';

/** The terminal table: one row per case (claims and sources are in the JSON), and a last line counting verdicts. */
export function fidelityTable(report: FidelityReport): string {
  const rows = report.cases.map((c) => [c.id, c.expected, c.measured, c.verdict]);
  const table = renderTable([{ header: 'case' }, { header: 'expected' }, { header: 'measured' }, { header: 'verdict' }], rows);
  return `${table}${fidelitySummary(report)}\n`;
}

/** `12 of 12 claims reproduced (1 reported, 1 skipped), seed 17`. */
export function fidelitySummary(report: FidelityReport): string {
  const judged = report.cases.filter((c) => c.reproduced !== null).length;
  const others = (['reported', 'skipped'] as const).map((v) => [v, report.cases.filter((c) => c.verdict === v).length] as const).filter(([, n]) => n > 0);
  const extra = others.length === 0 ? '' : ` (${others.map(([v, n]) => `${n} ${v}`).join(', ')})`;
  return `${judged - report.failed} of ${judged} claims reproduced${extra}, seed ${report.seed}`;
}

/** CSV columns, stable for scripts: one row per case; `details` is the case's details as JSON. */
export const FIDELITY_CSV_COLUMNS = ['id', 'claim', 'source', 'scenario', 'expected', 'measured', 'verdict', 'reproduced', 'details'] as const;

/** The cases as CSV (`reproduced` empty when only reported or skipped). */
export function fidelityCsv(report: FidelityReport): string {
  const rows = report.cases.map((c) => [c.id, c.claim, c.source, c.scenario, c.expected, c.measured, c.verdict, c.reproduced === null ? '' : String(c.reproduced), JSON.stringify(c.details)]);
  return stringify([[...FIDELITY_CSV_COLUMNS], ...rows]);
}

/** The report as JSON: format version, seed, counts, and every case with its claim, source, expected, measured and reproduced. */
export function fidelityJson(report: FidelityReport): string {
  return `${JSON.stringify({ format: JSON_FORMAT_VERSION, command: 'fidelity', seed: report.seed, failed: report.failed, cases: report.cases }, null, 2)}\n`;
}
