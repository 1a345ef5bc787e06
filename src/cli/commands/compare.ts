import { resolve } from 'node:path';
import type { ChalkInstance } from 'chalk';
import { parseDuration } from '../../core/duration.js';
import type { Algorithm, PolicyInput } from '../../core/policy.js';
import { comparisonCsv } from '../../report/data/compare-csv.js';
import { renderCharts } from '../../report/text/compare-chart.js';
import { aroundWorstWindow, chartGrid, runSpan, stripGrid, zoomSpan, type Span } from '../../report/chart-frame.js';
import { renderStrip } from '../../report/text/request-strip.js';
import { comparisonJson } from '../../report/data/compare-json.js';
import { comparisonHtml } from '../../report/html/compare-html.js';
import { comparisonProm } from '../../report/data/compare-prom.js';
import { htmlFollowPlans } from '../../report/html/html-views.js';
import { summarise } from '../../report/text/compare-summary.js';
import { contendersOf } from '../../report/trade-off.js';
import { renderComparison } from '../../report/text/compare-table.js';
import { renderSummaryMatrix } from '../../report/text/summary-matrix.js';
import { renderTradeOffCharts } from '../../report/text/trade-off-charts.js';
import { wrapWords } from '../../report/text/wrap.js';
import { colorEnabled, painter } from '../../report/text/color.js';
import { builtinScenarios, resolveScenario } from '../../scenario/builtins.js';
import { withOverrides, type ScenarioOverrides } from '../../scenario/load-scenario.js';
import { compareWorkloads } from '../../sim/compare.js';
import type { WorkloadComparison } from '../../sim/comparison.js';
import { worstKey, type FocusPlan } from '../../sim/focus.js';
import { builtinContender, moduleContender, type Contender } from '../../sim/contender.js';
import { scenarioWorkload, traceWorkload, type Workload } from '../../sim/workload.js';
import {
  algorithmsFlag,
  arrivalCapFlag,
  gateFlags,
  limiterTimeoutFlag,
  policyListFlag,
  policyOverrides,
  usage,
  type GateFlags,
  type PolicyFlags,
} from '../flags.js';
import type { ColorFlags } from '../flag-groups.js';
import { checkOutputs, writeFormats, type OutputTargets } from '../outputs.js';
import type { Command } from '../../report/io.js';
import { reportGates } from '../gates.js';
import { createProgress } from '../progress.js';
import { terminalWidth } from '../terminal-width.js';
import { compareSweepCommand } from '../compare-sweep.js';

/** Options of `ratelab compare`: its flags, text as commander hands them over, and the scenarios named. */
export interface CompareOptions
  extends PolicyFlags, GateFlags, ColorFlags, OutputTargets<'csv' | 'json' | 'html' | 'prom'> {
  scenarios?: string[];
  /** --policy LIST: `LIMIT/WINDOW` entries, several a composite (instead of --limit/--window/--burst). */
  policy?: string;
  algorithms?: string;
  trace?: string;
  bucket?: string;
  limiter?: string;
  /** --limiter-timeout D: the bound of each call into the --limiter module (default 5s). */
  limiterTimeout?: string;
  skipBadLines?: boolean;
  /** false with --no-chart. */
  chart?: boolean;
  /** false with --no-measure: skip the memory and speed columns (the rest is deterministic). */
  measure?: boolean;
  /** --strip: the request strip of one key after the charts. */
  strip?: boolean;
  /** --key NAME: the key the charts and the strip follow (default: the worst key). */
  key?: string;
  /** --from, --to: the span of scenario time the charts and the strip show. */
  from?: string;
  to?: string;
  /** --detail: each scenario's table and charts, even in a run of many. */
  detail?: boolean;
  /** --max-arrivals N: the most arrivals a scenario may make (default DEFAULT_MAX_ARRIVALS). */
  maxArrivals?: string;
  /** --sweep-limit LIST: measure memory per full key at each limit instead of replaying (src/cli/compare-sweep.ts). */
  sweepLimit?: string;
}

/** Naming at most this many scenarios shows each one's table and charts without --detail. */
const DETAIL_UP_TO = 2;

/**
 * `ratelab compare [SCENARIO|FILE...]`: replays built-in scenarios (all by default), scenario
 * files or a recorded trace through every algorithm (and a user's limiter) and reports
 * either the summary (a sentence per scenario, then the matrix) or, with --detail or one
 * or two scenarios, each scenario's table and charts (then the matrix when there are
 * several), and optionally CSV and JSON. All input is checked before anything runs, and
 * the files are written only once everything succeeded. With gates, exits 1 after all
 * that when a row breaks one, naming each such row on stderr.
 */
export const compareCommand: Command<CompareOptions> = async (flags, io) => {
  if (flags.sweepLimit !== undefined) {
    const { prom, ...sweepFlags } = flags;
    // Said as the sweep says its other refusals (src/cli/compare-sweep.ts).
    if (prom !== undefined)
      throw usage(
        '--sweep-limit',
        '--prom does not apply: the sweep decides no request, so it has no decisions to count',
      );
    return compareSweepCommand({ ...sweepFlags, sweepLimit: flags.sweepLimit }, io);
  }
  const algorithms = algorithmsFlag(flags.algorithms);
  const overrides = compareOverrides(flags, algorithms);
  const gates = gateFlags(flags);
  const toStdout = checkOutputs(flags, io.cwd);
  const workloads = resolveWorkloads(flags, overrides, io.cwd);
  const contenders = contenderFactory(algorithms, flags.limiter, limiterTimeoutFlag(flags.limiterTimeout), io.cwd);
  const focus = focusPlanner(flags, toStdout);
  for (const workload of workloads) focus.check(workload);

  const progress = createProgress(io);
  const results = await compareWorkloads(workloads, {
    contenders,
    measure: flags.measure ?? true,
    onProgress: (label, position, total) => progress.update(`ratelab compare ${position}/${total}: ${label}`),
    focus: focus.plan,
    ...(flags.html === undefined
      ? {}
      : { follow: (result: WorkloadComparison) => htmlFollowPlans(result.worstWindows, runSpan(result), flags.key) }),
  });
  progress.done();
  for (const result of results) focus.found(result);

  const summaries = results.map(summarise);
  if (toStdout) {
    for (const note of results.flatMap((result) => result.notes)) io.stderr.write(`ratelab: note: ${note}\n`);
  } else {
    const paint = painter(io, flags.color);
    const colour = colorEnabled(io, flags.color);
    const width = terminalWidth(io);
    const detail = showDetail(flags);
    for (const result of results) {
      if (!detail) {
        io.stdout.write(renderLesson(result, paint, width));
        continue;
      }
      io.stdout.write(`${renderComparison(result, paint, width)}\n`);
      if (flags.chart !== false) io.stdout.write(`${renderCharts(result, paint, colour)}\n`);
      // --strip: the request strip of the followed key, right after the charts.
      if (flags.strip && result.focus) io.stdout.write(`${renderStrip(result, result.focus, paint)}\n`);
    }
    io.stdout.write(renderClosing(results, detail, paint, width));
  }
  await writeFormats(
    flags,
    {
      csv: () => comparisonCsv(results),
      json: () => comparisonJson(results, summaries),
      html: () =>
        comparisonHtml(results, `${results.map((r) => r.name).join(', ')} through ${contendersOf(results).join(', ')}`),
      prom: () => comparisonProm(results),
    },
    io,
  );
  return reportGates(
    results.flatMap((result) => result.rows),
    gates,
    io,
  );
};

/**
 * What the second pass follows (see CompareOptions.focus): the worst key or --key, over
 * --from/--to, with chart columns of exactly --bucket when charts or JSON are wanted, and
 * strip cells with --strip; no pass when nothing would show it. `check` refuses bad flags before the run where the workload
 * says its span; `found` refuses a --key that never arrived.
 */
function focusPlanner(flags: CompareOptions, toStdout: boolean) {
  const zoom = { startMs: timeFlag(flags.from, '--from'), endMs: timeFlag(flags.to, '--to') };
  const bucketMs = flags.bucket === undefined ? undefined : parseDuration(flags.bucket, '--bucket');
  const charts = flags.chart !== false && (!toStdout || flags.json !== undefined);
  const wanted = charts || flags.strip === true || flags.json !== undefined;
  // The summary (many scenarios, no --detail) prints no chart: a second pass over every
  // workload for it would be thrown away (it was half of `compare --no-measure`'s replay time).
  const shown =
    flags.json !== undefined || flags.strip === true || flags.key !== undefined || (charts && showDetail(flags));
  const chartGridOf = (span: Span, name: string) =>
    flags.chart === false ? undefined : chartGrid(span, bucketMs, name);
  return {
    check(workload: Workload): void {
      if (!wanted || workload.originMs === undefined || workload.minBuckets === undefined) return;
      const run = { startMs: workload.originMs, endMs: workload.originMs + workload.minBuckets * workload.bucketMs };
      chartGridOf(zoomSpan(run, zoom, workload.name), workload.name);
    },
    plan(result: WorkloadComparison): FocusPlan | undefined {
      const worst = worstKey(result.worstWindows);
      const key = flags.key ?? worst?.key;
      if (!shown || key === undefined) return undefined;
      const run = runSpan(result);
      const span = zoomSpan(run, zoom, result.name);
      const zoomed = flags.from !== undefined || flags.to !== undefined;
      const stripSpan = zoomed || !worst ? span : aroundWorstWindow(run, worst.endMs, result.policy.windowMs);
      const chart = chartGridOf(span, result.name);
      const strip = flags.strip ? stripGrid(stripSpan, result.policy.windowMs) : undefined;
      return { key, worst: key === worst?.key, ...(chart ? { chart } : {}), ...(strip ? { strip } : {}) };
    },
    found(result: WorkloadComparison): void {
      if (flags.key === undefined || !result.focus || result.focus.arrivals > 0) return;
      const worst = worstKey(result.worstWindows)?.key;
      throw usage(
        '--key',
        `no requests for key ${JSON.stringify(flags.key)} in ${result.name}${worst === undefined ? '' : ` (its worst key is ${JSON.stringify(worst)})`}`,
      );
    },
  };
}

/** A point in scenario time given as a duration (0 allowed), or undefined when not given. */
function timeFlag(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  if (/^\s*0+(\.0+)?\s*(ms|s|m|h|d)?\s*$/.test(value)) return 0;
  return parseDuration(value, flag);
}

/**
 * Whether to print each workload's table and charts: asked with --detail, or implied by
 * naming one or two scenarios or a trace; a run of many prints the sentences only.
 */
function showDetail(flags: CompareOptions): boolean {
  const named = flags.scenarios?.length ?? 0;
  return flags.detail === true || flags.trace !== undefined || (named > 0 && named <= DETAIL_UP_TO);
}

/** A workload's sentence wrapped to `width`, and its notes: all the summary prints of it. */
function renderLesson(result: WorkloadComparison, paint: ChalkInstance, width: number): string {
  const notes = result.notes.flatMap((note) =>
    wrapWords(`note: ${note}`, width - 2, '  ').map((line) => paint.yellow(`  ${line}`)),
  );
  return [...wrapWords(summarise(result), width, '  '), ...notes].join('\n') + '\n';
}

/**
 * What closes the run: for several workloads the matrix (and, in the summary, how to see
 * more); then, when measured, the trade-off's bars and scatter (for one workload, its own
 * figures after its table).
 */
function renderClosing(
  results: readonly WorkloadComparison[],
  detail: boolean,
  paint: ChalkInstance,
  width: number,
): string {
  const tradeOff = renderTradeOffCharts(results, paint, width);
  // One workload's table or charts already end with a blank line.
  if (results.length <= 1) return tradeOff.replace(/^\n/, '');
  const hint = detail ? '' : paint.dim('Tables and charts per scenario: --detail, or name one or two scenarios.\n');
  return `${detail ? '' : '\n'}${renderSummaryMatrix(results, paint, width)}${hint}${tradeOff}`;
}

function resolveWorkloads(flags: CompareOptions, overrides: ScenarioOverrides, cwd: string): Workload[] {
  const names = flags.scenarios ?? [];
  if (flags.trace !== undefined) {
    if (names.length > 0)
      throw usage(
        '--trace',
        `give either scenarios or --trace, not both (got ${names.join(', ')} and --trace ${flags.trace})`,
      );
    if (overrides.policy === undefined && (overrides.limit === undefined || overrides.windowMs === undefined))
      throw usage(
        '--trace',
        'a trace needs a policy: pass --limit N and --window D (and optionally --burst N), or --policy LIMIT/WINDOW,...',
      );
    const policy: PolicyInput = overrides.policy ?? {
      limit: overrides.limit as number,
      windowMs: overrides.windowMs as number,
      ...(overrides.burst === undefined ? {} : { burst: overrides.burst }),
    };
    const bucketMs = flags.bucket === undefined ? undefined : parseDuration(flags.bucket, '--bucket');
    return [
      traceWorkload(resolve(cwd, flags.trace), policy, {
        label: flags.trace,
        skipBadLines: flags.skipBadLines ?? false,
        bucketMs,
      }),
    ];
  }
  if (flags.bucket !== undefined) parseDuration(flags.bucket, '--bucket');
  const withinCap = arrivalCapFlag(flags.maxArrivals);
  const builtins = builtinScenarios();
  const scenarios = (names.length === 0 ? builtins : names.map((name) => resolveScenario(name, cwd, builtins))).map(
    withinCap,
  );
  return scenarios.map((scenario) => {
    const changed = withOverrides(scenario, overrides);
    const bucketMs = flags.bucket === undefined ? changed.bucketMs : parseDuration(flags.bucket, '--bucket');
    return scenarioWorkload({ ...changed, bucketMs });
  });
}

/** `--policy`, or `--limit`/`--window`/`--burst` (not both), and `--seed`, checked. */
function compareOverrides(flags: CompareOptions, algorithms: readonly Algorithm[]): ScenarioOverrides {
  const overrides = policyOverrides(flags);
  if (flags.policy === undefined) return overrides;
  const other =
    flags.limit !== undefined
      ? '--limit'
      : flags.window !== undefined
        ? '--window'
        : flags.burst !== undefined
          ? '--burst'
          : undefined;
  if (other !== undefined)
    throw usage('--policy', `give either --policy or ${other}, not both (--policy sets every limit: ${flags.policy})`);
  return { ...overrides, policy: policyListFlag(flags.policy, algorithms) };
}

function contenderFactory(
  algorithms: Algorithm[],
  limiter: string | undefined,
  limiterTimeoutMs: number,
  cwd: string,
): (policy: PolicyInput) => Promise<Contender[]> {
  return async (policy) => {
    const contenders = algorithms.map((algorithm) => builtinContender(algorithm, policy));
    if (limiter !== undefined) contenders.push(await moduleContender(limiter, policy, cwd, limiterTimeoutMs));
    return contenders;
  };
}
