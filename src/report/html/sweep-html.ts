import { formatDuration } from '../../core/duration.js';
import type { MemorySweep } from '../../metrics/memory-sweep.js';
import { roundToPlaces } from '../round.js';
import { slopeText } from '../text/memory-sweep-chart.js';
import { htmlAssets } from './html-assets.js';
import { htmlPage, type HtmlTable } from './html-document.js';

/** What the sweep page shows, as plain data: sweep-page.browser.js draws it. */
export interface SweepPage {
  title: string;
  /** What was measured, and how. */
  subtitle: string;
  /** The limits swept, ascending: the chart's x. */
  limits: number[];
  /** One line per algorithm: bytes per full key and keys measured at each of `limits` (null where not measured). */
  series: SweepPageSeries[];
  /** Every figure: per algorithm its slope, growth and bytes per key at each limit. */
  table: HtmlTable;
}

export interface SweepPageSeries {
  algorithm: string;
  bytesPerKey: (number | null)[];
  keys: (number | null)[];
}

/**
 * The self-contained HTML page of `compare --sweep-limit`: a log-log line chart (uPlot) of
 * bytes per full key against the limit, a line per algorithm, the figures under the cursor,
 * and the table of every figure.
 */
export function memorySweepHtml(sweep: MemorySweep): string {
  return htmlPage('ratelab compare --sweep-limit', sweepPage(sweep), htmlAssets().sweepPageScript);
}

/** The page's data (exported for the tests). */
export function sweepPage(sweep: MemorySweep): SweepPage {
  const limits = [...new Set(sweep.rows.map((row) => row.limit))].sort((a, b) => a - b);
  const at = (algorithm: string, limit: number) =>
    sweep.rows.find((row) => row.algorithm === algorithm && row.limit === limit);
  const series = sweep.slopes.map(({ algorithm }) => ({
    algorithm,
    bytesPerKey: limits.map((limit) => {
      const row = at(algorithm, limit);
      return row === undefined ? null : roundToPlaces(row.bytesPerKey, 1);
    }),
    keys: limits.map((limit) => at(algorithm, limit)?.keys ?? null),
  }));
  const windowMs = sweep.rows[0]?.windowMs ?? 0;
  return {
    title: 'Memory per full key against the limit',
    subtitle: `${sweep.slopes.map((s) => s.algorithm).join(', ')} at limits ${limits.join(', ')} (window ${formatDuration(windowMs)}): one request of limit units per key, each point measured in a fresh child process after a forced GC, key strings excluded`,
    limits,
    series,
    table: {
      title: 'bytes per full key',
      columns: ['algorithm', 'slope', 'memory', ...limits.map((limit) => `limit ${limit.toLocaleString('en-US')}`)],
      rows: sweep.slopes.map((slope, i) => [
        slope.algorithm,
        slopeText(slope),
        slope.growth,
        ...(series[i]?.bytesPerKey ?? []),
      ]),
    },
  };
}
