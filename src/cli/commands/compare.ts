import { existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parseDuration } from '../../duration.js';
import { RatelabError, describeValue } from '../../errors.js';
import { ALGORITHMS, checkAlgorithm, type Algorithm, type Policy } from '../../policy.js';
import { comparisonCsv } from '../../report/compare-csv.js';
import { renderCharts } from '../../report/compare-chart.js';
import { comparisonJson } from '../../report/compare-json.js';
import { summarise } from '../../report/compare-summary.js';
import { renderComparison } from '../../report/compare-table.js';
import { colorEnabled, painter } from '../../report/color.js';
import { writeOutput } from '../../report/write-output.js';
import { builtinScenarios, resolveScenario } from '../../scenario/builtins.js';
import { withOverrides, type ScenarioOverrides } from '../../scenario/load-scenario.js';
import { compareWorkloads } from '../../sim/compare.js';
import { builtinContender, moduleContender, type Contender } from '../../sim/contender.js';
import { scenarioWorkload, traceWorkload, type Workload } from '../../sim/workload.js';
import { EXIT } from '../exit-codes.js';
import { wholeNumberFlag } from '../flags.js';
import type { Command } from '../io.js';
import { createProgress } from '../progress.js';

/** Flags of `ratelab compare`, as commander hands them over (values still text). */
export interface CompareFlags {
  scenarios?: string[];
  algorithms?: string;
  trace?: string;
  limit?: string;
  window?: string;
  burst?: string;
  seed?: string;
  bucket?: string;
  limiter?: string;
  skipBadLines?: boolean;
  csv?: string;
  json?: string;
  /** false with --no-chart. */
  chart?: boolean;
  /** false with --no-color. */
  color?: boolean;
  /** false with --no-measure: skip the memory and speed columns (the rest is deterministic). */
  measure?: boolean;
}

/**
 * `ratelab compare [SCENARIO|FILE...]`: replays built-in scenarios (all by default), scenario
 * files or a recorded trace through every algorithm (and a user's limiter) and reports the
 * table, the charts, and optionally CSV and JSON. All input is checked before anything
 * runs, and the files are written only once everything succeeded.
 */
export const compareCommand: Command<CompareFlags> = async (flags, io) => {
  const overrides = policyOverrides(flags);
  const algorithms = parseAlgorithms(flags.algorithms);
  const toStdout = checkOutputs(flags, io.cwd);
  const workloads = resolveWorkloads(flags, overrides, io.cwd);
  const contenders = contenderFactory(algorithms, flags.limiter, io.cwd);

  const progress = createProgress(io);
  const results = await compareWorkloads(workloads, {
    contenders,
    measure: flags.measure ?? true,
    onProgress: (label) => progress.update(`ratelab compare: ${label}`),
  });
  progress.done();

  const summaries = results.map(summarise);
  if (toStdout) {
    for (const note of results.flatMap((result) => result.notes)) io.stderr.write(`ratelab: note: ${note}\n`);
  } else {
    const paint = painter(io, flags.color);
    const colour = colorEnabled(io, flags.color);
    for (const result of results) {
      io.stdout.write(`${renderComparison(result, paint)}\n`);
      if (flags.chart !== false) io.stdout.write(`${renderCharts(result, paint, colour)}\n`);
    }
  }
  if (flags.csv !== undefined) await writeOutput(flags.csv, comparisonCsv(results), io);
  if (flags.json !== undefined) await writeOutput(flags.json, comparisonJson(results, summaries), io);
  return EXIT.OK;
};

function resolveWorkloads(flags: CompareFlags, overrides: ScenarioOverrides, cwd: string): Workload[] {
  const names = flags.scenarios ?? [];
  if (flags.trace !== undefined) {
    if (names.length > 0) throw usage('--trace', `give either scenarios or --trace, not both (got ${names.join(', ')} and --trace ${flags.trace})`);
    if (overrides.limit === undefined || overrides.windowMs === undefined) throw usage('--trace', 'a trace needs a policy: pass --limit N and --window D (and optionally --burst N)');
    const policy: Policy = { limit: overrides.limit, windowMs: overrides.windowMs, ...(overrides.burst === undefined ? {} : { burst: overrides.burst }) };
    const bucketMs = flags.bucket === undefined ? undefined : parseDuration(flags.bucket, '--bucket');
    return [traceWorkload(resolve(cwd, flags.trace), policy, { label: flags.trace, skipBadLines: flags.skipBadLines ?? false, bucketMs })];
  }
  if (flags.bucket !== undefined) parseDuration(flags.bucket, '--bucket');
  const builtins = builtinScenarios();
  const scenarios = names.length === 0 ? builtins : names.map((name) => resolveScenario(name, cwd, builtins));
  return scenarios.map((scenario) => {
    const changed = withOverrides(scenario, overrides);
    const bucketMs = flags.bucket === undefined ? changed.bucketMs : parseDuration(flags.bucket, '--bucket');
    return scenarioWorkload({ ...changed, bucketMs });
  });
}

function contenderFactory(algorithms: Algorithm[], limiter: string | undefined, cwd: string): (policy: Policy) => Promise<Contender[]> {
  return async (policy) => {
    const contenders = algorithms.map((algorithm) => builtinContender(algorithm, policy));
    if (limiter !== undefined) contenders.push(await moduleContender(limiter, policy, cwd));
    return contenders;
  };
}

export function policyOverrides(flags: CompareFlags): ScenarioOverrides {
  const overrides: ScenarioOverrides = {};
  if (flags.limit !== undefined) overrides.limit = wholeNumberFlag(flags.limit, '--limit', 1, 0xffff_ffff);
  if (flags.window !== undefined) overrides.windowMs = parseDuration(flags.window, '--window');
  if (flags.burst !== undefined) overrides.burst = wholeNumberFlag(flags.burst, '--burst', 1, 0xffff_ffff);
  if (flags.seed !== undefined) overrides.seed = wholeNumberFlag(flags.seed, '--seed', 0, 0xffff_ffff);
  return overrides;
}

function parseAlgorithms(list: string | undefined): Algorithm[] {
  if (list === undefined) return [...ALGORITHMS];
  const names = list.split(',').map((name) => name.trim()).filter((name) => name !== '');
  if (names.length === 0) throw usage('--algorithms', `expected a comma-separated list of ${ALGORITHMS.join(', ')}, got ${describeValue(list)}`);
  return [...new Set(names.map((name) => checkAlgorithm(name, '--algorithms')))];
}

/** Checks the output targets up front; returns whether one of them is stdout (then no table). Shared with `attack`. */
export function checkOutputs(flags: Pick<CompareFlags, 'csv' | 'json'>, cwd: string): boolean {
  if (flags.csv === '-' && flags.json === '-') throw usage('--csv', 'only one of --csv and --json can go to stdout (-)');
  for (const [flag, target] of [['--csv', flags.csv], ['--json', flags.json]] as const) {
    if (target === undefined || target === '-') continue;
    const folder = dirname(resolve(cwd, target));
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw usage(flag, `${target}: the folder ${folder} does not exist`);
  }
  return flags.csv === '-' || flags.json === '-';
}

export function usage(flag: string, why: string): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${flag}: ${why}`, { field: flag });
}
