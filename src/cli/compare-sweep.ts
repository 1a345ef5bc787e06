import { parseDuration } from '../core/duration.js';
import { sweepMemory, type MemorySweep } from '../metrics/memory-sweep.js';
import { memorySweepCsv } from '../report/data/memory-sweep-csv.js';
import { memorySweepJson } from '../report/data/memory-sweep-json.js';
import { memorySweepHtml } from '../report/html/sweep-html.js';
import type { CommandIO } from '../report/io.js';
import { painter } from '../report/text/color.js';
import { renderMemorySweep } from '../report/text/memory-sweep-chart.js';
import { algorithmsFlag, sweepLimitsFlag, usage } from './flags.js';
import { checkOutputs, writeFormats, type OutputTargets } from './outputs.js';
import type { ColorFlags } from './flag-groups.js';
import { createProgress } from './progress.js';
import { terminalWidth } from './terminal-width.js';

/** The window of the sweep's policies when --window is not given: it changes no algorithm's memory. */
export const SWEEP_WINDOW_MS = 60_000;

/**
 * The options compare hands a sweep: the flags it uses, and those of a replay, which it refuses
 * (see {@link NOT_WITH_SWEEP}). Values are text as commander gives them.
 */
export interface SweepOptions extends ColorFlags, OutputTargets<'csv' | 'json' | 'html'> {
  sweepLimit: string;
  algorithms?: string;
  window?: string;
  /** false with --no-chart: the table without the plot. */
  chart?: boolean;
  /** false with --no-measure, refused. */
  measure?: boolean;
  scenarios?: string[];
  trace?: string;
  limiter?: string;
  limit?: string;
  burst?: string;
  seed?: string;
  bucket?: string;
  skipBadLines?: boolean;
  strip?: boolean;
  key?: string;
  from?: string;
  to?: string;
  detail?: boolean;
  maxWorstWindow?: string;
  maxError?: string;
  maxArrivals?: string;
  limiterTimeout?: string;
}

/**
 * The flags of compare that mean nothing to a sweep (it replays no traffic), with how the
 * sweep differs: given with --sweep-limit, each is bad input rather than silently ignored.
 */
const NOT_WITH_SWEEP: readonly [keyof SweepOptions, string, string][] = [
  ['trace', '--trace', 'the sweep replays no trace'],
  ['limiter', '--limiter', 'the sweep measures the built-in algorithms only'],
  ['limit', '--limit', 'the sweep sets the limit itself'],
  ['burst', '--burst', 'the sweep measures each bucket at capacity = limit'],
  ['seed', '--seed', 'the sweep replays no scenario'],
  ['bucket', '--bucket', 'the sweep draws no timeline'],
  ['skipBadLines', '--skip-bad-lines', 'the sweep reads no trace'],
  ['strip', '--strip', 'the sweep draws no request strip'],
  ['key', '--key', 'the sweep follows no key'],
  ['from', '--from', 'the sweep draws no timeline'],
  ['to', '--to', 'the sweep draws no timeline'],
  ['detail', '--detail', 'the sweep has no per-scenario detail'],
  ['maxWorstWindow', '--max-worst-window', 'the sweep decides no request'],
  ['maxError', '--max-error', 'the sweep decides no request'],
  ['maxArrivals', '--max-arrivals', 'the sweep replays no scenario'],
  ['limiterTimeout', '--limiter-timeout', 'the sweep calls no --limiter module'],
];

/**
 * `ratelab compare --sweep-limit LIST`: replays no scenario; measures memory per full key of
 * each algorithm of --algorithms at each limit of LIST (under --window, default 60s) and
 * reports it as a log-log chart, a legend of slopes and a table, and as --csv, --json and
 * --html. Every flag is checked and the output targets too before the first probe.
 */
export async function compareSweepCommand(flags: SweepOptions, io: CommandIO) {
  refuseScenarioFlags(flags);
  const algorithms = algorithmsFlag(flags.algorithms);
  const limits = sweepLimitsFlag(flags.sweepLimit, algorithms);
  const windowMs = flags.window === undefined ? SWEEP_WINDOW_MS : parseDuration(flags.window, '--window');
  const toStdout = checkOutputs(flags, io.cwd);
  const progress = createProgress(io);
  const sweep: MemorySweep = await sweepMemory({ algorithms, limits, windowMs }, (done, total, row) =>
    progress.update(`ratelab compare --sweep-limit ${done}/${total}: ${row.algorithm} at ${row.limit}`),
  );
  progress.done();
  if (!toStdout)
    io.stdout.write(
      `${renderMemorySweep(sweep, painter(io, flags.color), terminalWidth(io), flags.chart !== false)}\n`,
    );
  await writeFormats(
    flags,
    { csv: () => memorySweepCsv(sweep), json: () => memorySweepJson(sweep), html: () => memorySweepHtml(sweep) },
    io,
  );
  return 0;
}

/** Throws naming the first scenario argument or replay flag given with --sweep-limit. */
function refuseScenarioFlags(flags: SweepOptions): void {
  const named = flags.scenarios ?? [];
  if (named.length > 0)
    throw usage('--sweep-limit', `give either scenarios or --sweep-limit, not both (got ${named.join(', ')})`);
  if (flags.measure === false) throw usage('--sweep-limit', '--no-measure leaves nothing to sweep: it only measures');
  for (const [option, flag, why] of NOT_WITH_SWEEP) {
    if (flags[option] !== undefined) throw usage('--sweep-limit', `${flag} does not apply: ${why}`);
  }
}
