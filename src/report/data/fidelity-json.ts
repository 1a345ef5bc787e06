import type { FidelityReport } from '../../fidelity/suite.js';
import { JSON_FORMAT_VERSION } from './json-format.js';

/** The report as JSON: format version, seed, counts, and every case with its claim, source, expected, measured and reproduced. */
export function fidelityJson(report: FidelityReport): string {
  return `${JSON.stringify({ format: JSON_FORMAT_VERSION, command: 'fidelity', seed: report.seed, failed: report.failed, cases: report.cases }, null, 2)}\n`;
}
