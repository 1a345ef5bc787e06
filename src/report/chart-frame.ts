import { formatDuration } from '../core/duration.js';
import { formatRunTime } from './run-time.js';
import { RatelabError } from '../core/errors.js';
import type { ColumnGrid } from '../metrics/focus-recorder.js';
import type { WorkloadComparison } from '../sim/comparison.js';

/** Widest chart, columns, labels and legend included: legible in an 80-column terminal. */
export const CHART_WIDTH = 80;
/** Columns of a window chart (labels and axis take the rest of 80). */
const MAX_CHART_COLUMNS = 68;
/** Cells of a request strip, window edges included (the algorithm's name takes the rest of 80). */
const MAX_STRIP_CELLS = 62;

/** A span of scenario time, ms: `[startMs, endMs)`. */
export interface Span {
  startMs: number;
  endMs: number;
}

/** What the timeline of a comparison covers (the run), from its first timeline. */
export function runSpan(result: WorkloadComparison): Span {
  const timeline = result.timelines[0]?.timeline;
  if (!timeline) return { startMs: 0, endMs: 0 };
  return { startMs: timeline.originMs, endMs: timeline.originMs + timeline.offered.length * timeline.bucketMs };
}

/**
 * `zoom` (times since the run's start, as --from/--to give them) checked against the run
 * `span`: `--from` before `--to`, both within it; the span to draw (the run where a bound
 * is not given). Throws INVALID_ARGUMENT naming the flag.
 */
export function zoomSpan(span: Span, zoom: Partial<Span>, scenario: string): Span {
  const origin = span.startMs;
  const startMs = zoom.startMs === undefined ? span.startMs : origin + zoom.startMs;
  const endMs = zoom.endMs === undefined ? span.endMs : origin + zoom.endMs;
  const at = (ms: number) => formatRunTime(ms, origin);
  const run = `${scenario} runs from ${at(span.startMs)} to ${at(span.endMs)}`;
  if (startMs < span.startMs || startMs >= span.endMs)
    throw invalid('--from', `${at(startMs)} is outside the run (${run})`);
  if (endMs > span.endMs || endMs <= span.startMs) throw invalid('--to', `${at(endMs)} is outside the run (${run})`);
  if (startMs >= endMs) throw invalid('--from', `must be before --to (got ${at(startMs)} and ${at(endMs)})`);
  return { startMs, endMs };
}

/**
 * The chart's columns over `span`: exactly `bucketMs` wide when given (INVALID_ARGUMENT
 * naming --bucket when that needs more than {@link MAX_CHART_COLUMNS}), else the
 * narrowest round width that fits.
 */
export function chartGrid(span: Span, bucketMs: number | undefined, scenario: string): ColumnGrid {
  const length = span.endMs - span.startMs;
  if (bucketMs === undefined) {
    const widthMs = roundWidth(length / MAX_CHART_COLUMNS);
    return { fromMs: span.startMs, widthMs, count: Math.ceil(length / widthMs) };
  }
  const count = Math.ceil(length / bucketMs);
  if (count > MAX_CHART_COLUMNS) {
    const fits = Math.ceil(length / MAX_CHART_COLUMNS);
    throw invalid(
      '--bucket',
      `${formatDuration(bucketMs)} would need ${count} chart columns over ${formatDuration(length)} of ${scenario} and ${MAX_CHART_COLUMNS} fit in ${CHART_WIDTH}: use --bucket ${formatDuration(fits)} or more, or zoom with --from/--to`,
    );
  }
  return { fromMs: span.startMs, widthMs: bucketMs, count };
}

/**
 * The strip's cells over `span`: the narrowest round width that fits, cells aligned to
 * multiples of it (so window edges fall between cells), with room for the edge marks.
 */
export function stripGrid(span: Span, windowMs: number): ColumnGrid {
  const length = span.endMs - span.startMs;
  const edges = Math.min(8, Math.ceil(length / windowMs) + 1);
  const widthMs = roundWidth(length / (MAX_STRIP_CELLS - edges));
  const fromMs = Math.floor(span.startMs / widthMs) * widthMs;
  return { fromMs, widthMs, count: Math.ceil((span.endMs - fromMs) / widthMs) };
}

/** The default strip span: one window either side of the end of the worst window, within the run. */
export function aroundWorstWindow(run: Span, endMs: number, windowMs: number): Span {
  const startMs = Math.max(run.startMs, endMs - windowMs);
  return { startMs, endMs: Math.min(run.endMs, Math.max(endMs + windowMs, startMs + 1)) };
}

/** The smallest of 1, 2, 5 x 10^k ms that is at least `minMs` (and at least 1 ms). */
export function roundWidth(minMs: number): number {
  for (let scale = 1; ; scale *= 10) {
    for (const step of [1, 2, 5]) if (step * scale >= minMs) return step * scale;
  }
}

function invalid(flag: string, why: string): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${flag}: ${why}`, { field: flag });
}
