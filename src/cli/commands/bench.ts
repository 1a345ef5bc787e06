import { resolve } from 'node:path';
import { readBenchRun, type BenchRun } from '../../bench/bench-run.js';
import { compareRuns, parseThreshold, type Comparison } from '../../bench/compare.js';
import { REFERENCE_GOAL_NOTE, checkGoals, referenceGoalMissed } from '../../bench/goals.js';
import { MEMORY_POLICY, plannedFigureNames, runBench, type BenchPlan } from '../../bench/runner.js';
import { parseDuration } from '../../core/duration.js';
import { RatelabError } from '../../core/errors.js';
import { ALGORITHMS } from '../../core/policy.js';
import {
  SPEED_COLUMNS_NOTE,
  renderComparison,
  renderGoals,
  renderMemory,
  renderMemoryBars,
  renderPeers,
  renderRoundsChart,
  renderSpeed,
  renderSpeedBars,
} from '../../report/text/bench-report.js';
import { renderCsv } from '../../report/data/bench-csv.js';
import { benchJson } from '../../report/data/bench-json.js';
import { actionBenchmarkEntries } from '../../report/data/github-action-benchmark.js';
import { painter } from '../../report/text/color.js';
import { writeOutput } from '../../report/write-output.js';
import { EXIT } from '../exit-codes.js';
import { redisBenchCommand } from '../redis-bench.js';
import { algorithmsFlag, limiterTimeoutFlag, wholeNumberFlag } from '../flags.js';
import type { ColorFlags, RedisTargetFlags } from '../flag-groups.js';
import { checkOutputs, outputTarget, sendsToStdout, writeFormats, type OutputTargets } from '../outputs.js';
import { terminalWidth } from '../terminal-width.js';
import { threadBenchCommand } from '../thread-bench.js';
import type { Command, CommandIO, OutputStream } from '../../report/io.js';

/** Options of `ratelab bench`, as commander parses them (strings until checked). */
export interface BenchOptions extends ColorFlags, RedisTargetFlags, OutputTargets<'csv' | 'json'> {
  quick?: boolean;
  /** Measuring time per task, over all rounds: a duration (`1s`, `300ms`). */
  time?: string;
  rounds?: string;
  /** Key counts of the round-robin workloads: `1e4,1e6`. */
  keys?: string;
  /** Comma-separated algorithm names. */
  algorithms?: string;
  /** `--limiter` module paths. */
  limiter?: string[];
  /** `--limiter-timeout`: the bound of each call into a `--limiter` module (default 5s). */
  limiterTimeout?: string;
  /** false with --no-peers. */
  peers?: boolean;
  memoryKeys?: string;
  baseline?: string;
  maxRegression?: string;
  updateBaseline?: boolean;
  /** What `--json` writes: see {@link BENCH_FORMATS}. */
  format?: string;
  /** Print only the regressions and the verdict. */
  quiet?: boolean;
  /** Also check ratelab's own goals (docs/bench.md). */
  goals?: boolean;
  /** Deprecated (`bench --redis URL`): runs `bench redis --redis URL` (src/cli/redis-bench.ts). */
  redis?: string;
  /** Deprecated (`bench --threads 1,2,4`): runs `bench threads 1,2,4` (src/cli/thread-bench.ts). */
  threads?: string;
}

/**
 * What `--json` writes: the run (`ratelab-bench/1`, with the comparison when there is a
 * baseline), or github-action-benchmark's custom JSON of the speed ratios
 * (customBiggerIsBetter) or of the memory per key (customSmallerIsBetter).
 */
export const BENCH_FORMATS = ['ratelab', 'github-action-benchmark', 'github-action-benchmark-memory'] as const;
type BenchFormat = (typeof BENCH_FORMATS)[number];

const DEFAULTS = {
  full: { rounds: 10, timeMs: 1000, keys: [10_000, 1_000_000], memoryKeys: 1_000_000 },
  quick: { rounds: 8, timeMs: 320, keys: [10_000], memoryKeys: 1_000_000 },
};

/**
 * `ratelab bench`: decisions per second and memory per key of every algorithm, the peers and
 * `--limiter` modules, each as a ratio to an inline reference bucket measured in the same
 * run. With `--baseline` it compares against a saved run and exits 1 on a regression.
 */
export const benchCommand: Command<BenchOptions> = async (options, io) => {
  if (options.threads !== undefined) {
    const { time, rounds, algorithms, json } = options;
    const code = await threadBenchCommand({ counts: options.threads, time, rounds, algorithms, json }, io, '--threads');
    return deprecated(io, 'bench --threads N', 'bench threads N', code);
  }
  if (options.redis !== undefined) {
    const { allowRemote, quick, rounds, json } = options;
    const code = await redisBenchCommand({ redis: options.redis, allowRemote, quick, rounds, json }, io);
    return deprecated(io, 'bench --redis URL', 'bench redis --redis URL', code);
  }
  const plan = planOf(options, io);
  formatOf(options.format);
  checkOutputs(targetsOf(options), io.cwd);
  parseThreshold(options.maxRegression ?? '10%'); // fail before a long run, not after
  if (options.updateBaseline && !options.baseline) {
    throw new RatelabError('INVALID_ARGUMENT', '--update-baseline: say which file with --baseline <file>', {
      field: '--update-baseline',
    });
  }
  // Read the baseline before a long run, so a bad path or file fails at once.
  const baseline = options.baseline
    ? await loadBaseline(options.baseline, options.updateBaseline === true, io)
    : undefined;
  if (baseline && options.baseline && !options.updateBaseline)
    checkSharedFigures(baseline, plannedFigureNames(plan), options.baseline);
  const progress =
    io.stderr.isTTY && !options.quiet ? (line: string) => io.stderr.write(`bench: ${line}\n`) : () => undefined;
  const run = await runBench(plan, progress);
  return finishBench(run, baseline, options, io);
};

/**
 * Everything after the measurement: writes `--json` / `--csv`, prints the report (or with
 * `--quiet` only the regressions and the verdict), compares with the baseline (exit 1 on a
 * regression) or rewrites it with `--update-baseline`.
 */
export async function finishBench(
  run: BenchRun,
  baseline: BenchRun | undefined,
  options: BenchOptions,
  io: CommandIO,
): Promise<number> {
  const comparison = baseline ? compareRuns(baseline, run, parseThreshold(options.maxRegression ?? '10%')) : undefined;
  const targets = targetsOf(options);
  await writeFormats(
    targets,
    { csv: () => renderCsv(run), json: () => `${JSON.stringify(jsonOf(run, comparison, options), null, 2)}\n` },
    io,
  );
  // Data owns stdout when it was sent there; the report then goes to stderr.
  const report: OutputStream = sendsToStdout(targets) ? io.stderr : io.stdout;
  if (options.quiet) report.write(renderQuiet(run, comparison, options.baseline, io, options.color));
  else {
    report.write(renderReport(run, io, options));
    if (comparison && options.baseline !== undefined)
      report.write(renderVerdict(comparison, options.baseline, io, options.color));
  }
  if (options.updateBaseline && options.baseline) {
    await writeOutput(options.baseline, `${JSON.stringify(run, null, 2)}\n`, io);
    io.stderr.write(`bench: baseline ${options.baseline} updated\n`);
    return EXIT.OK;
  }
  return comparison && comparison.regressions > 0 ? EXIT.CHECK_FAILED : EXIT.OK;
}

function jsonOf(run: BenchRun, comparison: Comparison | undefined, options: BenchOptions): unknown {
  const format = formatOf(options.format);
  if (format === 'ratelab') return benchJson(run, comparison, options.baseline);
  return actionBenchmarkEntries(run, format === 'github-action-benchmark' ? 'speed' : 'memory', comparison);
}

function formatOf(flag: string | undefined): BenchFormat {
  if (flag === undefined) return 'ratelab';
  if ((BENCH_FORMATS as readonly string[]).includes(flag)) return flag as BenchFormat;
  throw new RatelabError(
    'INVALID_ARGUMENT',
    `--format: expected one of ${BENCH_FORMATS.join(', ')}, got ${JSON.stringify(flag)}`,
    { field: '--format' },
  );
}

function planOf(options: BenchOptions, io: CommandIO): BenchPlan {
  const quick = options.quick === true;
  const defaults = quick ? DEFAULTS.quick : DEFAULTS.full;
  const rounds = options.rounds === undefined ? defaults.rounds : wholeNumberFlag(options.rounds, '--rounds', 2, 100);
  const timeMs = options.time === undefined ? defaults.timeMs : parseDuration(options.time, '--time');
  if (timeMs / rounds < 5) {
    throw new RatelabError(
      'INVALID_ARGUMENT',
      `--time: ${options.time} over ${rounds} rounds leaves under 5 ms per round; give at least ${5 * rounds}ms`,
      { field: '--time' },
    );
  }
  return {
    quick,
    algorithms: algorithmsFlag(options.algorithms),
    keyCounts:
      options.keys === undefined
        ? defaults.keys
        : options.keys.split(',').map((part) => wholeNumberFlag(part, '--keys', 1, 10_000_000)),
    rounds,
    // Two processes per subject, their rounds pooled: process-to-process variation is noise too.
    processes: 2,
    roundMs: timeMs / rounds,
    peers: options.peers !== false && !quick,
    modules: (options.limiter ?? []).map((path) => resolve(io.cwd, path)),
    limiterTimeoutMs: limiterTimeoutFlag(options.limiterTimeout),
    memoryKeys:
      options.memoryKeys === undefined
        ? defaults.memoryKeys
        : wholeNumberFlag(options.memoryKeys, '--memory-keys', 0, 10_000_000),
    harness: !quick,
  };
}

/** Where the outputs go; `--format` without `--json` means stdout, as `--json` alone does. */
function targetsOf(options: BenchOptions): OutputTargets<'csv' | 'json'> {
  return { csv: options.csv, json: outputTarget(options.json) ?? (options.format === undefined ? undefined : '-') };
}

/**
 * A deprecated spelling's run: its exit code, and once it is over a line on stderr saying
 * what to type instead. A run that fails on an error prints that error's line alone.
 */
function deprecated(io: CommandIO, old: string, replacement: string, code: number): number {
  io.stderr.write(`ratelab: deprecated: ${old}; use ${replacement}\n`);
  return code;
}

/**
 * A baseline must share a figure with the run: one that shares none would pass the gate
 * having compared nothing (another --keys, --algorithms or workload set than it was made with).
 */
function checkSharedFigures(baseline: BenchRun, planned: readonly string[], path: string): void {
  const names = new Set(baseline.figures.map((figure) => figure.name));
  if (planned.some((name) => names.has(name))) return;
  const sample = (list: readonly string[]) =>
    (list.length > 3 ? `${list.slice(0, 2).join(', ')}, ...` : list.join(', ')) || 'no figure';
  throw new RatelabError(
    'INVALID_BASELINE',
    `${path}: shares no figure with this run (it has ${sample([...names])}; this run makes ${sample(planned)}): nothing would be compared; run with the baseline's flags, or rewrite it with --update-baseline`,
    { field: path },
  );
}

async function loadBaseline(path: string, updating: boolean, io: CommandIO): Promise<BenchRun | undefined> {
  try {
    return await readBenchRun(path, io.cwd);
  } catch (error) {
    // Updating replaces whatever is there; only a plain comparison needs a good baseline.
    if (!updating || !(error instanceof RatelabError)) throw error;
    io.stderr.write(`bench: ${error.message}; writing a new baseline\n`);
    return undefined;
  }
}

function renderReport(run: BenchRun, io: CommandIO, options: BenchOptions): string {
  const paint = painter(io, options.color);
  const width = terminalWidth(io);
  const parts = [
    paint.bold('Decisions per second') + ` (median of ${run.settings.rounds} rounds)\n${SPEED_COLUMNS_NOTE}\n`,
    renderSpeed(run),
  ];
  const speedBars = renderSpeedBars(run, paint, width);
  if (speedBars) parts.push(`\n${speedBars}`);
  if (io.stdout.isTTY) {
    const first = run.settings.workloads[0]?.name;
    if (first)
      parts.push(
        `\nx reference per round on ${first}, one line per algorithm\n`,
        renderRoundsChart(run, first, ALGORITHMS),
      );
  }
  const peers = renderPeers(run);
  if (peers)
    parts.push(
      `\n${paint.bold('Peers')} (they read wall time, so each runs under a limit no call rate reaches and admits every call, as the reference does on the workloads they run)\n`,
      peers,
    );
  const memory = renderMemory(run);
  if (memory)
    parts.push(
      `\n${paint.bold('Memory per key')} (${run.settings.memoryKeys} keys, limit ${MEMORY_POLICY.limit}; key strings excluded)\n`,
      memory,
      `\n${renderMemoryBars(run, paint, width)}`,
    );
  if (options.goals) parts.push(renderGoalsSection(run, paint));
  if (run.harness) {
    const h = run.harness;
    parts.push(
      `\nHarness check (${h.workload}, reference): tinybench with batches of ${run.settings.batch} reads ${h.batchedVsLoop.toFixed(2)}x a plain timed loop; one decision per iteration reads ${h.unbatchedVsLoop.toFixed(2)}x\n`,
    );
  }
  for (const note of run.notes) parts.push(`note: ${note}\n`);
  return parts.join('');
}

/** ratelab's own goals (`--goals`), and why the ratio goals are missed when they are. */
function renderGoalsSection(run: BenchRun, paint: ReturnType<typeof painter>): string {
  const goals = checkGoals(run, MEMORY_POLICY.limit);
  const measured = goals.filter((goal) => goal.met !== undefined);
  const parts = [
    `\n${paint.bold('Goals')} of ratelab (memory goals hold at 1e6 keys, where the columns' growth slack is smallest)\n`,
    renderGoals(measured, paint),
  ];
  if (referenceGoalMissed(goals)) parts.push(`${REFERENCE_GOAL_NOTE}\n`);
  if (measured.length < goals.length)
    parts.push(
      `${goals.length - measured.length} goals not measured in this run (a full run with the peers installed measures all)\n`,
    );
  return parts.join('');
}

/**
 * `--quiet`: the regressed figures (none: no table) and the verdict; without a baseline,
 * one line saying what was measured.
 */
function renderQuiet(
  run: BenchRun,
  comparison: Comparison | undefined,
  path: string | undefined,
  io: CommandIO,
  color: boolean | undefined,
): string {
  if (comparison === undefined || path === undefined)
    return `bench: ${run.figures.length} figures measured (no --baseline to compare with)\n`;
  const paint = painter(io, color);
  const regressed = { ...comparison, rows: comparison.rows.filter((row) => row.verdict === 'regressed') };
  return (regressed.rows.length > 0 ? renderComparison(regressed, paint) : '') + verdictLine(comparison, path, paint);
}

function renderVerdict(comparison: Comparison, path: string, io: CommandIO, color: boolean | undefined): string {
  const paint = painter(io, color);
  const threshold = `${(comparison.maxRegression * 100).toFixed(0)}%`;
  const head = `\n${paint.bold(`Against ${path}`)} (ratio to the reference; regressed = worse by more than ${threshold} and Mann-Whitney U p < 0.05 over rounds)\n`;
  return head + renderComparison(comparison, paint) + verdictLine(comparison, path, paint);
}

function verdictLine(comparison: Comparison, path: string, paint: ReturnType<typeof painter>): string {
  const threshold = `${(comparison.maxRegression * 100).toFixed(0)}%`;
  const n = comparison.regressions;
  return n > 0
    ? paint.red(`${n} figure${n === 1 ? '' : 's'} regressed beyond ${threshold} against ${path}\n`)
    : `no regression beyond ${threshold} against ${path} (${comparison.rows.length} figures)\n`;
}
