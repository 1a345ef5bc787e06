import { readFileSync } from 'node:fs';
import { Command as Program, CommanderError } from 'commander';
import { RatelabError, type RatelabErrorCode } from '../errors.js';
import { algorithmsCommand } from './commands/algorithms.js';
import { checkTiersCommand } from './commands/check-tiers.js';
import { compareCommand, type CompareFlags } from './commands/compare.js';
import { distributedCommand, type DistributedFlags } from './commands/distributed.js';
import { scenariosCommand } from './commands/scenarios.js';
import { EXIT } from './exit-codes.js';
import type { CommandIO } from './io.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const UNAVAILABLE: ReadonlySet<RatelabErrorCode> = new Set(['REDIS_UNAVAILABLE']);

/** Runs the CLI on `argv` (without node and the script) and returns the exit code. */
export async function run(argv: readonly string[], io: CommandIO): Promise<number> {
  let code: number = EXIT.OK;
  const program = new Program('ratelab')
    .description('Rate limiters, and a lab that replays traffic through them to show how they differ.')
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const setCode = (result: number) => {
    code = result;
  };

  program
    .command('algorithms')
    .description('list the algorithms and what each keeps per key')
    .action(async () => setCode(await algorithmsCommand({}, io)));
  program
    .command('check-tiers')
    .description('validate a tiers file (YAML or JSON) and summarise it')
    .argument('<file>', 'the tiers file')
    .action(async (file: string) => setCode(await checkTiersCommand({ file }, io)));

  program
    .command('compare')
    .description('replay scenarios (all built-ins by default), scenario files or a trace through every algorithm, side by side')
    .argument('[scenarios...]', 'built-in scenario names or scenario YAML files')
    .option('--algorithms <list>', 'comma-separated algorithms to compare (default: all)')
    .option('--limiter <module>', 'also run your own limiter: a module exporting (policy, { clock }) => { consume(key, cost) }')
    .option('--trace <file>', 'replay a recorded trace (CSV time_ms,key[,cost], JSON lines, or an access log) instead of scenarios')
    .option('--skip-bad-lines', 'skip malformed or out-of-order trace lines (and say how many) instead of failing')
    .option('--limit <n>', 'policy limit (overrides the scenario; required with --trace)')
    .option('--window <duration>', 'policy window, e.g. 1s (overrides the scenario; required with --trace)')
    .option('--burst <n>', 'bucket capacity for token bucket and GCRA (overrides the scenario)')
    .option('--seed <n>', 'random seed (overrides the scenario)')
    .option('--bucket <duration>', 'timeline bucket width (default: the scenario\'s, or the window for a trace)')
    .option('--csv <file>', 'write one row per scenario x algorithm as CSV (- for stdout)')
    .option('--json <file>', 'write the rows and timelines as JSON (- for stdout)')
    .option('--no-chart', 'no charts')
    .option('--no-color', 'no colour')
    .option('--no-measure', 'skip measuring memory and speed (every other column is deterministic)')
    .action(async (scenarios: string[], options: Omit<CompareFlags, 'scenarios'>) => setCode(await compareCommand({ ...options, scenarios }, io)));
  program
    .command('distributed')
    .description('spread a scenario over N simulated nodes and compare distributed designs against the global limit (no Redis needed)')
    .argument('[scenario]', 'a built-in scenario name or a scenario YAML file (default: fleet)')
    .option('--nodes <n>', 'nodes behind the load balancer (default 4)')
    .option('--strategy <list>', 'central, local-split, sync, comma-separated (default: all, side by side)')
    .option('--sync <duration>', 'sync period of the sync design (default 100ms)')
    .option('--rtt <duration>', 'round trip to the store: added to each central decision, delay of each sync (default 1ms)')
    .option('--timeout <duration>', 'how long a call to an unreachable store waits (default 50ms)')
    .option('--outage <start-end>', 'the store is unreachable in this span of the scenario, e.g. 10s-20s')
    .option('--fail-mode <list>', 'open, closed, local, comma-separated (default: all three with --outage, else open)')
    .option('--balance <kind>', 'even (round robin) or skewed (Zipf over nodes) (default even)')
    .option('--algorithm <name>', 'algorithm of the shared and the per-node limiters (default sliding-log)')
    .option('--limit <n>', 'global policy limit (overrides the scenario)')
    .option('--window <duration>', 'policy window, e.g. 1s (overrides the scenario)')
    .option('--burst <n>', 'bucket capacity for token bucket and GCRA (overrides the scenario)')
    .option('--seed <n>', 'random seed of the traffic and the load balancer (overrides the scenario)')
    .option('--csv <file>', 'write one row per design as CSV (- for stdout)')
    .option('--json <file>', 'write the rows and timelines as JSON (- for stdout)')
    .option('--no-chart', 'no chart')
    .option('--no-color', 'no colour')
    .action(async (scenario: string | undefined, options: Omit<DistributedFlags, 'scenario'>) => setCode(await distributedCommand({ ...options, ...(scenario === undefined ? {} : { scenario }) }, io)));
  program
    .command('scenarios')
    .description('list the built-in scenarios and what each teaches')
    .action(async () => setCode(await scenariosCommand({}, io)));

  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT.BAD_INPUT;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    return report(error, io);
  }
}

/** One line on stderr for an expected failure; the stack only for bugs, and only on request. */
function report(error: unknown, io: CommandIO): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.OK : EXIT.BAD_INPUT;
  }
  if (error instanceof RatelabError) {
    for (const problem of error.problems) io.stderr.write(`ratelab: ${problem}\n`);
    return UNAVAILABLE.has(error.code) ? EXIT.UNAVAILABLE : EXIT.BAD_INPUT;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`ratelab: internal error: ${message} (rerun with RATELAB_DEBUG=1 for details)\n`);
  if (io.env.RATELAB_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT.INTERNAL;
}
