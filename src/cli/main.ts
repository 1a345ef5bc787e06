import { readFileSync } from 'node:fs';
import { Command as Program, CommanderError } from 'commander';
import { RatelabError, type RatelabErrorCode } from '../errors.js';
import { ALGORITHMS } from '../policy.js';
import { algorithmsCommand } from './commands/algorithms.js';
import { ATTACK_DEFAULTS, attackCommand, type AttackOptions } from './commands/attack.js';
import { benchCommand, type BenchOptions } from './commands/bench.js';
import { checkTiersCommand } from './commands/check-tiers.js';
import { compareCommand, type CompareFlags } from './commands/compare.js';
import { distributedCommand, type DistributedFlags } from './commands/distributed.js';
import type { RaceOptions } from './commands/race.js';
import { scenariosCommand, type ScenariosOptions } from './commands/scenarios.js';
import { SERVE_DEFAULTS, serveCommand, type ServeOptions } from './commands/serve.js';
import { EXIT } from './exit-codes.js';
import type { CommandIO } from '../io.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const UNAVAILABLE: ReadonlySet<RatelabErrorCode> = new Set(['REDIS_UNAVAILABLE', 'ENDPOINT_UNAVAILABLE']);

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
    .command('serve')
    .description('run a demo API behind the 429 middleware (client id from X-API-Key, else the address); stop with Ctrl-C')
    .option('--tiers <file>', 'a tiers file (YAML or JSON): X-API-Key picks the client, the file its tier')
    .option('--port <port>', 'TCP port (0: any free port)', String(SERVE_DEFAULTS.port))
    .option('--host <host>', 'address to listen on', SERVE_DEFAULTS.host)
    .option('--algorithm <name>', `without --tiers: the algorithm (default ${SERVE_DEFAULTS.algorithm})`)
    .option('--limit <n>', `without --tiers: requests per window (default ${SERVE_DEFAULTS.limit})`)
    .option('--window <duration>', `without --tiers: the window, e.g. 1s, 1m (default ${SERVE_DEFAULTS.window})`)
    .option('--burst <n>', 'without --tiers: bucket capacity (token-bucket, gcra)')
    .option('--trust-proxy <hops|addresses>', 'believe X-Forwarded-For: a number of proxy hops, or proxy addresses/CIDRs, comma-separated')
    .option('--log', 'log every request even when stdout is not a terminal')
    .option('--quiet', 'no per-request log lines')
    .action(async (flags: ServeOptions) => setCode(await serveCommand({ ...flags, signal: io.interrupts?.() }, io)));
  program
    .command('attack')
    .description('replay a scenario (or a trace) against a live HTTP endpoint in real time and report what it really enforced; loopback only unless --allow-remote')
    .argument('<url>', 'the endpoint, e.g. http://127.0.0.1:8080/ (ratelab serve)')
    .argument('[scenario]', 'a built-in scenario name or a scenario file')
    .option('--trace <file>', "replay a recorded trace instead (judged by --limit/--window, else by the endpoint's RateLimit-Policy)")
    .option('--skip-bad-lines', 'skip malformed or out-of-order trace lines instead of failing')
    .option('--speed <x>', 'scenario time per wall time: 10 replays ten times faster', String(ATTACK_DEFAULTS.speed))
    .option('--duration <duration>', 'replay only the first part of the scenario (scenario time)')
    .option('--key-header <name>', "the header carrying each request's key", ATTACK_DEFAULTS.keyHeader)
    .option('--align <duration>', "keep the replay's phase against this period of epoch time: time t is sent when the clock is congruent to t / speed (lines up with the endpoint's fixed windows)")
    .option('--limit <n>', "judge by this limit (with --window; default: the endpoint's RateLimit-Policy, else, for a scenario, its own)")
    .option('--window <duration>', 'judge by this window, in wall time (alone: the limit is read from RateLimit-Policy, else X-RateLimit-Limit)')
    .option('--bucket <duration>', "timeline bucket, wall time (default: the scenario's, time-scaled; for a trace, the judged window)")
    .option('--connections <n>', 'most requests in flight (and connections open)', String(ATTACK_DEFAULTS.connections))
    .option('--max-requests <n>', 'send at most this many requests', String(ATTACK_DEFAULTS.maxRequests))
    .option('--max-time <duration>', 'send nothing after this much wall time', ATTACK_DEFAULTS.maxTime)
    .option('--timeout <duration>', 'a request without a response after this long is an error', ATTACK_DEFAULTS.timeout)
    .option('--no-probe', 'do not retry at Retry-After to check it')
    .option('--allow-remote', 'allow a target that is not a loopback address')
    .option('--csv <file>', 'write the row as CSV (- for stdout)')
    .option('--json <file>', 'write the report as JSON, with an attack section (- for stdout)')
    .option('--max-worst-window <ratio>', "fail (exit 1) when any row's worst window exceeds this ratio of the limit")
    .option('--max-error <percent>', "fail (exit 1) when any row's error exceeds this percent of requests")
    .option('--no-chart', 'no chart')
    .option('--no-color', 'no colour')
    .action(async (url: string, scenario: string | undefined, flags: Omit<AttackOptions, 'url' | 'scenario'>) =>
      setCode(await attackCommand({ ...flags, url, scenario, signal: io.interrupts?.() }, io)),
    );

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
    .option('--strip', 'after the charts, the request strip of one key: per algorithm, its requests over time admitted or denied')
    .option('--key <name>', 'the key the charts and the strip follow (default: the worst key)')
    .option('--from <duration>', 'show the charts and the strip from this scenario time, e.g. 900ms')
    .option('--to <duration>', 'show the charts and the strip up to this scenario time, e.g. 1100ms')
    .option('--detail', "each scenario's table and charts, not just its sentence (implied when naming one or two scenarios, or with --trace)")
    .option('--max-worst-window <ratio>', 'CI gate: exit 1 if any scenario x algorithm admits more than ratio x the limit in one window, e.g. 1.0 or 2.0')
    .option('--max-error <pct>', 'CI gate: exit 1 if any scenario x algorithm decides more than pct % of requests unlike the exact sliding log')
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
    .option('--schema', "print the scenario file's JSON Schema (also shipped as scenarios/scenario.schema.json)")
    .option('--template', 'print a commented example scenario to start from')
    .action(async (options: ScenariosOptions) => setCode(await scenariosCommand(options, io)));
  program
    .command('race')
    .description('race a naive GET-then-SET limiter against the Lua script on a real Redis, and count what each admits over the limit')
    .requiredOption('--redis <url>', 'the Redis to race on, e.g. redis://127.0.0.1:6380 (loopback only unless --allow-remote)')
    .option('--allow-remote', 'allow a non-loopback Redis host')
    .option('--algorithm <name>', 'the Lua limiter to race (default token-bucket)')
    .option('--limit <n>', 'the limit on the one key (default 1000)')
    .option('--connections <n>', 'Redis connections racing (default 4)')
    .option('--in-flight <n>', 'calls in flight per connection (default 50)')
    .option('--requests <n>', 'requests in all (default twice the limit)')
    // Loaded when run: it brings ioredis, which every other command would pay to start.
    .action(async (options: RaceOptions) => setCode(await (await import('./commands/race.js')).raceCommand(options, io)));
  program
    .command('bench')
    .description('measure decisions/s and memory per key of every algorithm against a reference; compare with a baseline')
    .option('--quick', 'the CI run: hot key and 1e4 keys, algorithms only, in about 20 s')
    .option('--time <duration>', 'measuring time per task over all rounds (default 1s, quick 320ms)')
    .option('--rounds <n>', 'repeated measurements per task, over two processes, for the noise test (default 10, quick 8)')
    .option('--keys <counts>', 'key counts of the round-robin workloads (default 1e4,1e6)')
    .option('--algorithms <names>', `comma-separated, from ${ALGORITHMS.join(', ')}`)
    .option('--limiter <module>', 'also measure your limiter module (repeatable)', (value: string, list: string[] = []) => [...list, value])
    .option('--no-peers', 'skip rate-limiter-flexible, limiter and express-rate-limit')
    .option('--memory-keys <n>', 'keys of the memory probe, 0 to skip it (default 1e6)')
    .option('--json [file]', 'write every figure as JSON (stdout without a file)')
    .option('--csv [file]', 'write every figure as CSV (stdout without a file)')
    .option('--baseline <file>', 'compare with a saved --json run; exit 1 on a regression')
    .option('--max-regression <percent>', 'a drop of the ratio to the reference beyond this counts (default 10%)')
    .option('--update-baseline', 'write this run to the --baseline file (atomically)')
    .option('--no-color', 'no colour')
    .action(async (options: BenchOptions) => setCode(await benchCommand(options, io)));

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
