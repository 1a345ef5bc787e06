import { resolve } from 'node:path';
import { readBenchRun, type BenchRun } from '../../bench/bench-run.js';
import { compareRuns, parseThreshold, type Comparison } from '../../bench/compare.js';
import { REFERENCE_GOAL_NOTE, checkGoals, referenceGoalMissed } from '../../bench/goals.js';
import { MEMORY_POLICY, runBench, type BenchPlan } from '../../bench/runner.js';
import { parseDuration } from '../../duration.js';
import { RatelabError } from '../../errors.js';
import { ALGORITHMS } from '../../policy.js';
import { renderBars, renderComparison, renderCsv, renderGoals, renderMemory, renderRoundsChart, renderSpeed } from '../../report/bench-report.js';
import { painter } from '../../report/color.js';
import { writeOutput, writeOutputs } from '../../report/write-output.js';
import { EXIT } from '../exit-codes.js';
import { redisBenchCommand } from '../redis-bench.js';
import { algorithmsFlag, checkOutputs, limiterTimeoutFlag, wholeNumberFlag } from '../flags.js';
import { threadBenchCommand } from '../thread-bench.js';
import type { Command, CommandIO, OutputStream } from '../../io.js';

/** Options of `ratelab bench`, as commander parses them (strings until checked). */
export interface BenchOptions {
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
  json?: string | boolean;
  csv?: string | boolean;
  baseline?: string;
  maxRegression?: string;
  updateBaseline?: boolean;
  color?: boolean;
  /** With a URL: the Redis benchmark instead (src/cli/redis-bench.ts). */
  redis?: string;
  allowRemote?: boolean;
  /** `--threads 1,2,4`: the shared limiter's thread bench instead (src/cli/thread-bench.ts). */
  threads?: string;
}

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
  if (options.threads !== undefined) return threadBenchCommand(options, io);
  if (options.redis !== undefined) return redisBenchCommand({ ...options, redis: options.redis }, io);
  const plan = planOf(options, io);
  checkOutputs({ csv: target(options.csv), json: target(options.json) }, io.cwd);
  parseThreshold(options.maxRegression ?? '10%'); // fail before a long run, not after
  if (options.updateBaseline && !options.baseline) {
    throw new RatelabError('INVALID_ARGUMENT', '--update-baseline: say which file with --baseline <file>', { field: '--update-baseline' });
  }
  // Read the baseline before a long run, so a bad path or file fails at once.
  const baseline = options.baseline ? await loadBaseline(options.baseline, options.updateBaseline === true, io) : undefined;
  const progress = io.stderr.isTTY ? (line: string) => io.stderr.write(`bench: ${line}\n`) : () => undefined;
  const run = await runBench(plan, progress);
  return finishBench(run, baseline, options, io);
};

/**
 * Everything after the measurement: writes `--json` / `--csv`, prints the report, compares
 * with the baseline (exit 1 on a regression) or rewrites it with `--update-baseline`.
 */
export async function finishBench(run: BenchRun, baseline: BenchRun | undefined, options: BenchOptions, io: CommandIO): Promise<number> {
  const json = target(options.json);
  const csv = target(options.csv);
  await writeOutputs([
    ...(json === undefined ? [] : [{ target: json, content: `${JSON.stringify(run, null, 2)}\n` }]),
    ...(csv === undefined ? [] : [{ target: csv, content: renderCsv(run) }]),
  ], io);
  // Data owns stdout when it was sent there; the report then goes to stderr.
  const report: OutputStream = json === '-' || csv === '-' ? io.stderr : io.stdout;
  report.write(renderReport(run, io, options.color));

  const comparison = baseline ? compareRuns(baseline, run, parseThreshold(options.maxRegression ?? '10%')) : undefined;
  if (comparison) report.write(renderVerdict(comparison, options.baseline as string, io, options.color));
  if (options.updateBaseline && options.baseline) {
    await writeOutput(options.baseline, `${JSON.stringify(run, null, 2)}\n`, io);
    io.stderr.write(`bench: baseline ${options.baseline} updated\n`);
    return EXIT.OK;
  }
  return comparison && comparison.regressions > 0 ? EXIT.CHECK_FAILED : EXIT.OK;
}

function planOf(options: BenchOptions, io: CommandIO): BenchPlan {
  const quick = options.quick === true;
  const defaults = quick ? DEFAULTS.quick : DEFAULTS.full;
  const rounds = options.rounds === undefined ? defaults.rounds : wholeNumberFlag(options.rounds, '--rounds', 2, 100);
  const timeMs = options.time === undefined ? defaults.timeMs : parseDuration(options.time, '--time');
  if (timeMs / rounds < 5) {
    throw new RatelabError('INVALID_ARGUMENT', `--time: ${options.time} over ${rounds} rounds leaves under 5 ms per round; give at least ${5 * rounds}ms`, { field: '--time' });
  }
  return {
    quick,
    algorithms: algorithmsFlag(options.algorithms),
    keyCounts: options.keys === undefined ? defaults.keys : options.keys.split(',').map((part) => wholeNumberFlag(part, '--keys', 1, 10_000_000)),
    rounds,
    // Two processes per subject, their rounds pooled: process-to-process variation is noise too.
    processes: 2,
    roundMs: timeMs / rounds,
    peers: options.peers !== false && !quick,
    modules: (options.limiter ?? []).map((path) => resolve(io.cwd, path)),
    limiterTimeoutMs: limiterTimeoutFlag(options.limiterTimeout),
    memoryKeys: options.memoryKeys === undefined ? defaults.memoryKeys : wholeNumberFlag(options.memoryKeys, '--memory-keys', 0, 10_000_000),
    harness: !quick,
  };
}

/** `--json` alone means stdout. */
function target(flag: string | boolean | undefined): string | undefined {
  if (flag === undefined || flag === false) return undefined;
  return flag === true ? '-' : flag;
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

function renderReport(run: BenchRun, io: CommandIO, color: boolean | undefined): string {
  const paint = painter(io, color);
  const parts = [paint.bold('Decisions per second') + ` (median of ${run.settings.rounds} rounds; x ref = ratio to the inline reference bucket in the same round)\n`, renderSpeed(run)];
  if (io.stdout.isTTY) {
    for (const workload of run.settings.workloads) parts.push(`\n${workload.name} (x reference)\n`, renderBars(run, workload.name));
    const first = run.settings.workloads[0]?.name;
    if (first) parts.push(`\nx reference per round on ${first}, one line per algorithm\n`, renderRoundsChart(run, first, ALGORITHMS));
  }
  const memory = renderMemory(run);
  if (memory) parts.push(`\n${paint.bold('Memory per key')} (${run.settings.memoryKeys} keys, limit ${MEMORY_POLICY.limit}; key strings excluded)\n`, memory);
  const goals = checkGoals(run, MEMORY_POLICY.limit);
  const measured = goals.filter((goal) => goal.met !== undefined);
  parts.push(`\n${paint.bold('Goals')} (memory goals hold at 1e6 keys, where the columns' growth slack is smallest)\n`, renderGoals(measured, paint));
  if (referenceGoalMissed(goals)) parts.push(`${REFERENCE_GOAL_NOTE}\n`);
  if (measured.length < goals.length) parts.push(`${goals.length - measured.length} goals not measured in this run (a full run with the peers installed measures all)\n`);
  if (run.harness) {
    const h = run.harness;
    parts.push(`\nHarness check (${h.workload}, reference): tinybench with batches of ${run.settings.batch} reads ${h.batchedVsLoop.toFixed(2)}x a plain timed loop; one decision per iteration reads ${h.unbatchedVsLoop.toFixed(2)}x\n`);
  }
  for (const note of run.notes) parts.push(`note: ${note}\n`);
  return parts.join('');
}

function renderVerdict(comparison: Comparison, path: string, io: CommandIO, color: boolean | undefined): string {
  const paint = painter(io, color);
  const threshold = `${(comparison.maxRegression * 100).toFixed(0)}%`;
  const head = `\n${paint.bold(`Against ${path}`)} (ratio to the reference; regressed = worse by more than ${threshold} and Mann-Whitney U p < 0.05 over rounds)\n`;
  const tail =
    comparison.regressions > 0
      ? paint.red(`${comparison.regressions} figure${comparison.regressions === 1 ? '' : 's'} regressed beyond ${threshold}\n`)
      : `no regression beyond ${threshold}\n`;
  return head + renderComparison(comparison, paint) + tail;
}
