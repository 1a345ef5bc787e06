import { formatDuration, parseDuration } from '../../core/duration.js';
import { describeValue } from '../../core/errors.js';
import { checkAlgorithm } from '../../core/names.js';
import { renderCharts } from '../../report/text/compare-chart.js';
import { summarise } from '../../report/text/compare-summary.js';
import { colorEnabled, painter } from '../../report/text/color.js';
import { asComparison } from '../../report/distributed-as-comparison.js';
import { distributedCsv } from '../../report/data/distributed-csv.js';
import { distributedJson } from '../../report/data/distributed-json.js';
import { distributedHtml } from '../../report/html/distributed-html.js';
import { runSpan } from '../../report/chart-frame.js';
import { htmlFollowPlans } from '../../report/html/html-views.js';
import { renderDistributed } from '../../report/text/distributed-table.js';
import { resolveScenario } from '../../scenario/builtins.js';
import { withOverrides } from '../../scenario/load-scenario.js';
import { FAIL_MODES, type FailMode } from '../../core/fail-over.js';
import { BALANCES, STRATEGIES, type FleetOptions, type Strategy } from '../../sim/distributed/fleet-options.js';
import { parseOutage, parseTime, type Outage } from '../../sim/distributed/outage.js';
import { simulateDistributed, type DistributedComparison } from '../../sim/distributed/simulate.js';
import { EXIT } from '../exit-codes.js';
import type { Command } from '../../report/io.js';
import { arrivalCapFlag, nameListFlag, policyOverrides, usage, wholeNumberFlag, type PolicyFlags } from '../flags.js';
import type { ColorFlags } from '../flag-groups.js';
import { checkOutputs, writeFormats, type OutputTargets } from '../outputs.js';
import { DEFAULT_DISTRIBUTED_SCENARIO, DISTRIBUTED_DEFAULTS } from '../defaults.js';
import { terminalWidth } from '../terminal-width.js';

/** Most nodes a fleet may have: a simulation of more says nothing new and costs memory per node. */
const MAX_NODES = 10_000;

/** Options of `ratelab distributed`: its flags, text as commander hands them over (the policy flags are `compare`'s), and the scenario. */
export interface DistributedOptions extends PolicyFlags, ColorFlags, OutputTargets<'csv' | 'json' | 'html'> {
  /** false with --no-chart. */
  chart?: boolean;
  scenario?: string;
  nodes?: string;
  strategy?: string;
  sync?: string;
  rtt?: string;
  timeout?: string;
  outage?: string;
  failMode?: string;
  balance?: string;
  algorithm?: string;
  /** --max-arrivals N: the most arrivals the scenario may make (default DEFAULT_MAX_ARRIVALS). */
  maxArrivals?: string;
}

/**
 * `ratelab distributed [SCENARIO]`: spreads a scenario's traffic over N simulated nodes
 * and replays it through each distributed design (all by default; with an outage, each
 * design that needs the store under each fail mode), against the exact global oracle.
 * Prints the table, the sentence and the chart, and optionally CSV and JSON. All input is
 * checked before anything runs; files are written only once everything succeeded.
 */
export const distributedCommand: Command<DistributedOptions> = async (flags, io) => {
  const overrides = policyOverrides(flags);
  const designs = fleetDesigns(flags);
  const toStdout = checkOutputs(flags, io.cwd);
  const withinCap = arrivalCapFlag(flags.maxArrivals);
  const scenario = withOverrides(
    withinCap(resolveScenario(flags.scenario ?? DEFAULT_DISTRIBUTED_SCENARIO, io.cwd)),
    overrides,
  );
  // The simulated fleets hold one policy per key; a composite would be judged by its first limit alone.
  if (scenario.limits !== undefined)
    throw usage(
      'SCENARIO',
      `${scenario.name} has a composite policy (${scenario.limits.length} limits), and distributed simulates one limit; replay it with ratelab compare`,
    );
  const outage = designs[0]?.outage;
  if (outage !== undefined && outage.startMs >= scenario.durationMs) {
    throw usage(
      '--outage',
      `${flags.outage} starts after the scenario ${scenario.name} ends (${formatDuration(scenario.durationMs)})`,
    );
  }

  const follow = (run: DistributedComparison) => htmlFollowPlans(run.worstWindows, runSpan(asComparison(run)));
  const result = await simulateDistributed(scenario, designs, flags.html === undefined ? {} : { follow });
  const asLab = asComparison(result);
  if (!toStdout) {
    const paint = painter(io, flags.color);
    io.stdout.write(`${renderDistributed(result, paint, terminalWidth(io))}\n`);
    if (flags.chart !== false) io.stdout.write(`${renderCharts(asLab, paint, colorEnabled(io, flags.color))}\n`);
  }
  await writeFormats(
    flags,
    {
      csv: () => distributedCsv(result),
      json: () => distributedJson(result, summarise(asLab)),
      html: () => distributedHtml(result),
    },
    io,
  );
  return EXIT.OK;
};

/**
 * The fleets to simulate, from the flags: every strategy asked for (default all); a
 * design that needs the store runs once per fail mode asked for (default: all three when
 * there is an outage, else only `open`, since without an outage the mode never acts).
 */
export function fleetDesigns(flags: DistributedOptions): FleetOptions[] {
  const strategies = oneOrMore(flags.strategy, STRATEGIES, '--strategy');
  const outage = flags.outage === undefined ? undefined : parseOutage(flags.outage, '--outage');
  const failModes =
    flags.failMode === undefined
      ? outage === undefined
        ? (['open'] as FailMode[])
        : [...FAIL_MODES]
      : oneOrMore(flags.failMode, FAIL_MODES, '--fail-mode');
  const base = {
    nodes:
      flags.nodes === undefined ? DISTRIBUTED_DEFAULTS.nodes : wholeNumberFlag(flags.nodes, '--nodes', 1, MAX_NODES),
    balance: flags.balance === undefined ? DISTRIBUTED_DEFAULTS.balance : oneOf(flags.balance, BALANCES, '--balance'),
    algorithm:
      flags.algorithm === undefined ? DISTRIBUTED_DEFAULTS.algorithm : checkAlgorithm(flags.algorithm, '--algorithm'),
    syncMs: flags.sync === undefined ? DISTRIBUTED_DEFAULTS.syncMs : parseDuration(flags.sync, '--sync'),
    rttMs: flags.rtt === undefined ? DISTRIBUTED_DEFAULTS.rttMs : parseTime(flags.rtt, '--rtt'),
    timeoutMs: flags.timeout === undefined ? DISTRIBUTED_DEFAULTS.timeoutMs : parseTime(flags.timeout, '--timeout'),
    ...(outage === undefined ? {} : { outage: outage as Outage }),
  };
  return strategies.flatMap((strategy: Strategy) => {
    const modes = strategy === 'local-split' ? failModes.slice(0, 1) : failModes;
    return modes.map((failMode) => ({ ...base, strategy, failMode }));
  });
}

function oneOf<T extends string>(text: string, allowed: readonly T[], flag: string): T {
  const value = text.trim();
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw usage(flag, `expected one of ${allowed.join(', ')}, got ${describeValue(text)}`);
}

/** A comma-separated list of allowed names, duplicates dropped, in the given order. */
function oneOrMore<T extends string>(text: string | undefined, allowed: readonly T[], flag: string): T[] {
  return nameListFlag(text, allowed, flag, `one or more of ${allowed.join(', ')} (comma-separated)`, (name) =>
    oneOf(name, allowed, flag),
  );
}
