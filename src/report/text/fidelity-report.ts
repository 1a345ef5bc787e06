import type { FidelityReport } from '../../fidelity/suite.js';
import { renderTable } from './table.js';
import { wrapWords } from './wrap.js';

/**
 * The terminal report, a row per case (claims and sources are in the JSON) and a last line
 * counting verdicts. As a table when it fits `width` columns; otherwise a block per case,
 * wrapped, since a wrapped table row is unreadable.
 */
export function fidelityTable(report: FidelityReport, width = Infinity): string {
  const rows = report.cases.map((c) => [c.id, c.expected, c.measured, c.verdict]);
  const table = renderTable(
    [{ header: 'case' }, { header: 'expected' }, { header: 'measured' }, { header: 'verdict' }],
    rows,
  );
  const fits = table.split('\n').every((line) => line.length <= width);
  return `${fits ? table : fidelityBlocks(report, width)}${fidelitySummary(report)}\n`;
}

/** A case per block: `id  verdict`, then its expected and measured figures, wrapped to `width`. */
function fidelityBlocks(report: FidelityReport, width: number): string {
  const lines: string[] = [];
  for (const c of report.cases) {
    lines.push(`${c.id}  ${c.verdict}`);
    for (const [label, figure] of [
      ['expected', c.expected],
      ['measured', c.measured],
    ]) {
      lines.push(...wrapWords(`${label}: ${figure}`, width - 2, '  ').map((line) => `  ${line}`));
    }
  }
  return `${lines.join('\n')}\n`;
}

/** `12 of 12 claims reproduced (1 reported, 1 skipped), seed 17`. */
export function fidelitySummary(report: FidelityReport): string {
  const judged = report.cases.filter((c) => c.reproduced !== null).length;
  const others = (['reported', 'skipped'] as const)
    .map((v) => [v, report.cases.filter((c) => c.verdict === v).length] as const)
    .filter(([, n]) => n > 0);
  const extra = others.length === 0 ? '' : ` (${others.map(([v, n]) => `${n} ${v}`).join(', ')})`;
  return `${judged - report.failed} of ${judged} claims reproduced${extra}, seed ${report.seed}`;
}
