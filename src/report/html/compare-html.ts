import type { ComparisonRow, WorkloadComparison } from '../../sim/comparison.js';
import { ACCURACY_COLUMNS, accuracyCells } from '../accuracy-cells.js';
import { runSpan } from '../chart-frame.js';
import { roundToPlaces } from '../round.js';
import { contendersOf } from '../trade-off.js';
import { summarise } from '../text/compare-summary.js';
import { describePolicy } from '../text/compare-table.js';
import { htmlDocument, type HtmlReport, type HtmlScenario, type HtmlTable } from './html-document.js';
import { focusHtmlView, timelineHtmlView } from './html-views.js';

/**
 * The HTML report of `ratelab compare`: the matrix, then per workload its sentence, table
 * and views (one per followed key, see {@link WorkloadComparison.followed}; else the
 * whole-run timelines). `subtitle` says what was run.
 */
export function comparisonHtml(results: readonly WorkloadComparison[], subtitle: string): string {
  return htmlDocument(comparisonReport(results, 'ratelab compare', subtitle));
}

/** The report's data (see {@link comparisonHtml}); `distributed` and `attack` build on it. */
export function comparisonReport(results: readonly WorkloadComparison[], title: string, subtitle: string): HtmlReport {
  return { title, subtitle, matrix: matrixOf(results), scenarios: results.map(scenarioOf) };
}

/** Scenario x contender (in order of appearance): worst window / limit and error %. */
export function matrixOf(results: readonly WorkloadComparison[]): HtmlReport['matrix'] {
  const columns = contendersOf(results);
  return {
    columns,
    rows: results.map((result) => ({
      scenario: result.name,
      cells: columns.map((name) => {
        const row = result.rows.find((r) => r.algorithm === name);
        return row
          ? { ratio: roundToPlaces(row.worstWindowRatio, 4), errorPercent: roundToPlaces(row.errorRate, 2) }
          : null;
      }),
    })),
  };
}

/** One workload's part of the report: its sentence and notes, table, and views. */
export function scenarioOf(result: WorkloadComparison): HtmlScenario {
  const originMs = runSpan(result).startMs;
  const views = (result.followed ?? [])
    .filter((view) => view.chart)
    .map((view) => focusHtmlView(view, result.policy, result.worstWindows, originMs));
  return {
    name: result.name,
    description: result.description,
    policy: describePolicy(result.policy),
    windowMs: result.policy.windowMs,
    notes: [summarise(result), ...result.notes],
    table: rowsTable(result.rows),
    facts: [],
    spans: [],
    views: views.length > 0 ? views : [timelineHtmlView('all keys', result.timelines, result.policy)],
  };
}

/** What each contender did, the measured columns only when measured. */
function rowsTable(rows: readonly ComparisonRow[]): HtmlTable {
  const bytes = rows.some((row) => row.bytesPerKey !== null);
  const speed = rows.some((row) => row.speedRatio !== null);
  return {
    title: 'per algorithm',
    columns: ['algorithm', ...ACCURACY_COLUMNS, 'keys', ...(bytes ? ['B/key'] : []), ...(speed ? ['speed x ref'] : [])],
    rows: rows.map((row) => [
      row.algorithm,
      ...accuracyCells(row, 2),
      row.keys,
      ...(bytes ? [row.bytesPerKey === null ? null : Math.round(row.bytesPerKey)] : []),
      ...(speed ? [row.speedRatio === null ? null : roundToPlaces(row.speedRatio, 2)] : []),
    ]),
  };
}
