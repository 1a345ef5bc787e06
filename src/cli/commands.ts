import { formatDuration } from '../core/duration.js';
import { DEFAULT_LIMITER_TIMEOUT_MS } from '../metrics/limiter-timeout.js';
import type { CommandIO } from '../report/io.js';
import { ALGORITHMS } from '../core/policy.js';
import { DEFAULT_MAX_ARRIVALS } from '../scenario/arrival-estimate.js';
import type { AttackOptions } from './commands/attack.js';
import type { BenchOptions } from './commands/bench.js';
import type { CompareFlags } from './commands/compare.js';
import type { DistributedFlags } from './commands/distributed.js';
import type { FidelityFlags } from './commands/fidelity.js';
import type { RaceOptions } from './commands/race.js';
import type { ScenariosOptions } from './commands/scenarios.js';
import type { ServeOptions } from './commands/serve.js';
import { ATTACK_DEFAULTS, DEFAULT_DISTRIBUTED_SCENARIO, DISTRIBUTED_DEFAULTS, SERVE_DEFAULTS } from './defaults.js';

// The CLI as a table (in the style of vitest's cli-config.ts): everything `--help` shows,
// and per command a `load` that imports its module only when it runs. Building the parser
// from this table loads no command module, so `ratelab --help` and a light command do not
// pay for the lab behind the others (zod, yaml, tinybench, the CSV and chart packages,
// ioredis). Only type imports from the command modules: they vanish when compiled.

/** One flag of a command, in commander's syntax. */
export interface FlagSpec {
  /** e.g. `--limit <n>`, `--json [file]`, `--no-chart`. */
  flags: string;
  description: string;
  /** The value when the flag is absent, shown in help as `(default: ...)`. */
  default?: string;
  /** The command does not run without it. */
  required?: true;
  /** May be given several times: the values arrive as a list. */
  repeatable?: true;
}

/** A positional argument, in commander's syntax (`<file>`, `[scenario]`, `[scenarios...]`). */
export interface ArgumentSpec {
  syntax: string;
  description: string;
}

/** What a command module becomes once loaded: commander's positional arguments and flags in, exit code out. */
export type CommandRunner = (args: readonly unknown[], flags: Record<string, unknown>, io: CommandIO) => Promise<number>;

/** One command of the CLI. */
export interface CommandSpec {
  name: string;
  description: string;
  arguments?: readonly ArgumentSpec[];
  flags: readonly FlagSpec[];
  /** Imports the command's module (when the command runs, never to build help). */
  load(): Promise<CommandRunner>;
}

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'algorithms',
    description: 'list the algorithms and what each keeps per key',
    flags: [],
    load: async () => {
      const { algorithmsCommand } = await import('./commands/algorithms.js');
      return (_args, _flags, io) => algorithmsCommand({}, io);
    },
  },
  {
    name: 'check-tiers',
    description: 'validate a tiers file (YAML or JSON) and summarise it',
    arguments: [{ syntax: '<file>', description: 'the tiers file' }],
    flags: [],
    load: async () => {
      const { checkTiersCommand } = await import('./commands/check-tiers.js');
      return ([file], _flags, io) => checkTiersCommand({ file: file as string }, io);
    },
  },
  {
    name: 'serve',
    description: 'run a demo API behind the 429 middleware (client id from an X-API-Key the tiers file lists, else the address); stop with Ctrl-C',
    flags: [
      { flags: '--tiers <file>', description: 'a tiers file (YAML or JSON): X-API-Key picks the client, the file its tier' },
      { flags: '--port <port>', description: 'TCP port (0: any free port)', default: String(SERVE_DEFAULTS.port) },
      { flags: '--host <host>', description: 'address to listen on', default: SERVE_DEFAULTS.host },
      { flags: '--algorithm <name>', description: `without --tiers: the algorithm (default ${SERVE_DEFAULTS.algorithm})` },
      { flags: '--limit <n>', description: `without --tiers: requests per window (default ${SERVE_DEFAULTS.limit})` },
      { flags: '--window <duration>', description: `without --tiers: the window, e.g. 1s, 1m (default ${SERVE_DEFAULTS.window})` },
      { flags: '--burst <n>', description: 'without --tiers: bucket capacity (token-bucket, gcra)' },
      { flags: '--trust-proxy <hops|addresses>', description: 'believe X-Forwarded-For: a number of proxy hops, or proxy addresses/CIDRs, comma-separated' },
      { flags: '--trust-api-keys', description: 'every X-API-Key is a client of its own, as `attack` sends scenario keys (a made-up key buys a fresh quota: for the lab only)' },
      { flags: '--log', description: 'log every request even when stdout is not a terminal' },
      { flags: '--quiet', description: 'no per-request log lines' },
    ],
    load: async () => {
      const { serveCommand } = await import('./commands/serve.js');
      return (_args, flags, io) => serveCommand({ ...(flags as ServeOptions), signal: io.interrupts?.() }, io);
    },
  },
  {
    name: 'attack',
    description: 'replay a scenario (or a trace) against a live HTTP endpoint in real time and report what it really enforced; loopback only unless --allow-remote',
    arguments: [
      { syntax: '<url>', description: 'the endpoint, e.g. http://127.0.0.1:8080/ (ratelab serve)' },
      { syntax: '[scenario]', description: 'a built-in scenario name or a scenario file' },
    ],
    flags: [
      { flags: '--trace <file>', description: "replay a recorded trace instead (judged by --limit/--window, else by the endpoint's RateLimit-Policy)" },
      { flags: '--skip-bad-lines', description: 'skip malformed or out-of-order trace lines instead of failing' },
      { flags: '--speed <x>', description: 'scenario time per wall time: 10 replays ten times faster', default: String(ATTACK_DEFAULTS.speed) },
      { flags: '--duration <duration>', description: 'replay only the first part of the scenario (scenario time)' },
      { flags: '--key-header <name>', description: "the header carrying each request's key", default: ATTACK_DEFAULTS.keyHeader },
      {
        flags: '--align <duration>',
        description: "keep the replay's phase against this period of epoch time: time t is sent when the clock is congruent to t / speed (lines up with the endpoint's fixed windows)",
      },
      { flags: '--limit <n>', description: "judge by this limit (with --window; default: the endpoint's RateLimit-Policy, else, for a scenario, its own)" },
      { flags: '--window <duration>', description: 'judge by this window, in wall time (alone: the limit is read from RateLimit-Policy, else X-RateLimit-Limit)' },
      { flags: '--bucket <duration>', description: "timeline bucket, wall time (default: the scenario's, time-scaled; for a trace, the judged window)" },
      { flags: '--connections <n>', description: 'most requests in flight (and connections open)', default: String(ATTACK_DEFAULTS.connections) },
      { flags: '--max-requests <n>', description: 'send at most this many requests', default: String(ATTACK_DEFAULTS.maxRequests) },
      { flags: '--max-time <duration>', description: 'stop after this much wall time: nothing more is sent, requests in flight are aborted, the report covers what was measured', default: ATTACK_DEFAULTS.maxTime },
      { flags: '--timeout <duration>', description: 'a request without its complete response (headers and body) after this long is cut off and counted as an error', default: ATTACK_DEFAULTS.timeout },
      { flags: '--no-probe', description: 'do not retry at Retry-After to check it' },
      { flags: '--allow-remote', description: 'allow a target that is not a loopback address' },
      { flags: '--csv <file>', description: 'write the row as CSV (- for stdout)' },
      { flags: '--json <file>', description: 'write the report as JSON, with an attack section (- for stdout)' },
      { flags: '--html <file>', description: 'write a self-contained HTML report to open in a browser: the endpoint against the exact oracle, response times, Retry-After honesty (- for stdout)' },
      { flags: '--max-worst-window <ratio>', description: "fail (exit 1) when any row's worst window exceeds this ratio of the limit" },
      { flags: '--max-error <percent>', description: "fail (exit 1) when any row's error exceeds this percent of requests" },
      { flags: '--no-chart', description: 'no chart' },
      { flags: '--no-color', description: 'no colour' },
    ],
    load: async () => {
      const { attackCommand } = await import('./commands/attack.js');
      return ([url, scenario], flags, io) =>
        attackCommand({ ...(flags as Omit<AttackOptions, 'url' | 'scenario'>), url: url as string, scenario: scenario as string | undefined, signal: io.interrupts?.() }, io);
    },
  },
  {
    name: 'compare',
    description: 'replay scenarios (all built-ins by default), scenario files or a trace through every algorithm, side by side',
    arguments: [{ syntax: '[scenarios...]', description: 'built-in scenario names or scenario YAML files' }],
    flags: [
      { flags: '--algorithms <list>', description: 'comma-separated algorithms to compare (default: all)' },
      { flags: '--limiter <module>', description: 'also run your own limiter: a module exporting (policy, { clock }) => { consume(key, cost) }' },
      {
        flags: '--limiter-timeout <duration>',
        description: `how long one call into the --limiter module (loading, factory, each async consume) may take before the run stops, exit 2 (default ${formatDuration(DEFAULT_LIMITER_TIMEOUT_MS)})`,
      },
      { flags: '--trace <file>', description: 'replay a recorded trace (CSV time_ms,key[,cost], JSON lines, or an access log) instead of scenarios' },
      { flags: '--skip-bad-lines', description: 'skip malformed or out-of-order trace lines (and say how many) instead of failing' },
      { flags: '--limit <n>', description: 'policy limit (overrides the scenario; required with --trace)' },
      { flags: '--window <duration>', description: 'policy window, e.g. 1s (overrides the scenario; required with --trace)' },
      { flags: '--burst <n>', description: 'bucket capacity for token bucket and GCRA (overrides the scenario)' },
      { flags: '--seed <n>', description: 'random seed (overrides the scenario)' },
      { flags: '--bucket <duration>', description: "timeline bucket width (default: the scenario's, or the window for a trace)" },
      { flags: '--csv <file>', description: 'write one row per scenario x algorithm as CSV (- for stdout)' },
      { flags: '--json <file>', description: 'write the rows and timelines as JSON (- for stdout)' },
      { flags: '--html <file>', description: 'write a self-contained HTML report to open in a browser: zoomable charts of the worst keys, request strips (- for stdout)' },
      { flags: '--no-chart', description: 'no charts' },
      { flags: '--no-color', description: 'no colour' },
      { flags: '--no-measure', description: 'skip measuring memory and speed (every other column is deterministic)' },
      { flags: '--strip', description: 'after the charts, the request strip of one key: per algorithm, its requests over time admitted or denied' },
      { flags: '--key <name>', description: 'the key the charts and the strip follow (default: the worst key)' },
      { flags: '--from <duration>', description: "show the charts and the strip from this time since the run's start (a trace's first arrival), e.g. 900ms" },
      { flags: '--to <duration>', description: "show the charts and the strip up to this time since the run's start, e.g. 1100ms" },
      { flags: '--detail', description: "each scenario's table and charts, not just its sentence (implied when naming one or two scenarios, or with --trace)" },
      {
        flags: '--max-worst-window <ratio>',
        description: 'CI gate: exit 1 if any scenario x algorithm admits more than ratio x the limit in one window, e.g. 1.0 or 2.0',
      },
      { flags: '--max-error <pct>', description: 'CI gate: exit 1 if any scenario x algorithm decides more than pct % of requests unlike the exact sliding log' },
      { flags: '--max-arrivals <n>', description: `refuse a scenario expected to make more arrivals than this (default ${DEFAULT_MAX_ARRIVALS.toLocaleString('en-US')})` },
    ],
    load: async () => {
      const { compareCommand } = await import('./commands/compare.js');
      return ([scenarios], flags, io) => compareCommand({ ...(flags as Omit<CompareFlags, 'scenarios'>), scenarios: scenarios as string[] }, io);
    },
  },
  {
    name: 'distributed',
    description: 'spread a scenario over N simulated nodes and compare distributed designs against the global limit (no Redis needed)',
    arguments: [{ syntax: '[scenario]', description: `a built-in scenario name or a scenario YAML file (default: ${DEFAULT_DISTRIBUTED_SCENARIO})` }],
    flags: [
      { flags: '--nodes <n>', description: `nodes behind the load balancer (default ${DISTRIBUTED_DEFAULTS.nodes})` },
      { flags: '--strategy <list>', description: 'central, local-split, sync, comma-separated (default: all, side by side)' },
      { flags: '--sync <duration>', description: `sync period of the sync design (default ${formatDuration(DISTRIBUTED_DEFAULTS.syncMs)})` },
      {
        flags: '--rtt <duration>',
        description: `round trip to the store: added to each central decision, delay of each sync (default ${formatDuration(DISTRIBUTED_DEFAULTS.rttMs)})`,
      },
      { flags: '--timeout <duration>', description: `how long a call to an unreachable store waits (default ${formatDuration(DISTRIBUTED_DEFAULTS.timeoutMs)})` },
      { flags: '--outage <start-end>', description: 'the store is unreachable in this span of the scenario, e.g. 10s-20s' },
      { flags: '--fail-mode <list>', description: 'open, closed, local, comma-separated (default: all three with --outage, else open)' },
      { flags: '--balance <kind>', description: `even (round robin) or skewed (Zipf over nodes) (default ${DISTRIBUTED_DEFAULTS.balance})` },
      { flags: '--algorithm <name>', description: `algorithm of the shared and the per-node limiters (default ${DISTRIBUTED_DEFAULTS.algorithm})` },
      { flags: '--max-arrivals <n>', description: `refuse a scenario expected to make more arrivals than this (default ${DEFAULT_MAX_ARRIVALS.toLocaleString('en-US')})` },
      { flags: '--limit <n>', description: 'global policy limit (overrides the scenario)' },
      { flags: '--window <duration>', description: 'policy window, e.g. 1s (overrides the scenario)' },
      { flags: '--burst <n>', description: 'bucket capacity for token bucket and GCRA (overrides the scenario)' },
      { flags: '--seed <n>', description: 'random seed of the traffic and the load balancer (overrides the scenario)' },
      { flags: '--csv <file>', description: 'write one row per design as CSV (- for stdout)' },
      { flags: '--json <file>', description: 'write the rows and timelines as JSON (- for stdout)' },
      { flags: '--html <file>', description: 'write a self-contained HTML report to open in a browser: per-design lines, the outage shaded (- for stdout)' },
      { flags: '--no-chart', description: 'no chart' },
      { flags: '--no-color', description: 'no colour' },
    ],
    load: async () => {
      const { distributedCommand } = await import('./commands/distributed.js');
      return ([scenario], flags, io) =>
        distributedCommand({ ...(flags as Omit<DistributedFlags, 'scenario'>), ...(scenario === undefined ? {} : { scenario: scenario as string }) }, io);
    },
  },
  {
    name: 'fidelity',
    description: 'check published claims about rate limiters (Figma, Cloudflare, sch_tbf.c, ITU-T I.371...) against seeded measurements; exit 1 when one is not reproduced',
    flags: [
      { flags: '--redis <url>', description: 'also measure what a Redis Lua script adds per request (loopback only unless --allow-remote); skipped without it' },
      { flags: '--allow-remote', description: 'allow a non-loopback Redis host' },
      { flags: '--only <names>', description: 'run only these checks, comma-separated (design, edge, token-bucket, gcra, nodes, cloudflare, redis)' },
      { flags: '--seed <n>', description: 'random seed of the suite (the README shows the default)' },
      { flags: '--csv <file>', description: 'write one row per case as CSV (- for stdout)' },
      { flags: '--json <file>', description: 'write the cases as JSON (- for stdout)' },
    ],
    load: async () => {
      const { fidelityCommand } = await import('./commands/fidelity.js');
      return (_args, flags, io) => fidelityCommand(flags as FidelityFlags, io);
    },
  },
  {
    name: 'scenarios',
    description: 'list the built-in scenarios and what each teaches',
    flags: [
      { flags: '--schema', description: "print the scenario file's JSON Schema (also shipped as scenarios/scenario.schema.json)" },
      { flags: '--template', description: 'print a commented example scenario to start from' },
    ],
    load: async () => {
      const { scenariosCommand } = await import('./commands/scenarios.js');
      return (_args, flags, io) => scenariosCommand(flags as ScenariosOptions, io);
    },
  },
  {
    name: 'race',
    description: 'race a naive GET-then-SET limiter against the Lua script on a real Redis, and count what each admits over the limit',
    flags: [
      { flags: '--redis <url>', description: 'the Redis to race on, e.g. redis://127.0.0.1:6380 (loopback only unless --allow-remote)', required: true },
      { flags: '--allow-remote', description: 'allow a non-loopback Redis host' },
      { flags: '--algorithm <name>', description: 'the Lua limiter to race (default token-bucket)' },
      { flags: '--limit <n>', description: 'the limit on the one key (default 1000)' },
      { flags: '--connections <n>', description: 'Redis connections racing (default 4)' },
      { flags: '--in-flight <n>', description: 'calls in flight per connection (default 50)' },
      { flags: '--requests <n>', description: 'requests in all (default twice the limit)' },
    ],
    load: async () => {
      const { raceCommand } = await import('./commands/race.js');
      return (_args, flags, io) => raceCommand(flags as unknown as RaceOptions, io);
    },
  },
  {
    name: 'bench',
    description: 'measure decisions/s and memory per key of every algorithm against a reference; compare with a baseline',
    flags: [
      { flags: '--quick', description: 'the CI run: hot key and 1e4 keys, algorithms only (how long: docs/bench.md)' },
      { flags: '--time <duration>', description: 'measuring time per task over all rounds (default 1s, quick 320ms)' },
      { flags: '--rounds <n>', description: 'repeated measurements per task, over two processes, for the noise test (default 10, quick 8)' },
      { flags: '--keys <counts>', description: 'key counts of the round-robin workloads (default 1e4,1e6)' },
      { flags: '--algorithms <names>', description: `comma-separated, from ${ALGORITHMS.join(', ')}` },
      { flags: '--limiter <module>', description: 'also measure your limiter module (repeatable)', repeatable: true },
      {
        flags: '--limiter-timeout <duration>',
        description: `how long one call into a --limiter module (loading, factory, each async consume) may take before the run stops, exit 2 (default ${formatDuration(DEFAULT_LIMITER_TIMEOUT_MS)})`,
      },
      { flags: '--no-peers', description: 'skip rate-limiter-flexible, limiter and express-rate-limit' },
      { flags: '--memory-keys <n>', description: 'keys of the memory probe, 0 to skip it (default 1e6)' },
      { flags: '--json [file]', description: 'write every figure as JSON (stdout without a file)' },
      { flags: '--csv [file]', description: 'write every figure as CSV (stdout without a file)' },
      { flags: '--baseline <file>', description: 'compare with a saved --json run; exit 1 on a regression' },
      { flags: '--max-regression <percent>', description: 'a drop of the ratio to the reference beyond this counts (default 10%)' },
      { flags: '--update-baseline', description: 'write this run to the --baseline file (atomically)' },
      { flags: '--format <format>', description: 'what --json writes: ratelab (the run, with the comparison and verdict under --baseline), github-action-benchmark (speed ratios, customBiggerIsBetter) or github-action-benchmark-memory (B/key, customSmallerIsBetter); default ratelab' },
      { flags: '--quiet', description: 'print only the regressions and the verdict' },
      { flags: '--goals', description: "also check ratelab's own speed and memory goals" },
      { flags: '--no-color', description: 'no colour' },
      { flags: '--redis <url>', description: 'instead: Redis token bucket, batched and per call, vs rate-limiter-flexible on this server (--rounds, --quick, --json apply)' },
      { flags: '--allow-remote', description: 'with --redis: allow a non-loopback host' },
      { flags: '--threads <counts>', description: 'instead: the shared limiter on worker threads, per-key locks vs one global lock, hot key and 1e4 keys (e.g. 1,2,4)' },
    ],
    load: async () => {
      const { benchCommand } = await import('./commands/bench.js');
      return (_args, flags, io) => benchCommand(flags as BenchOptions, io);
    },
  },
];
