import { formatDuration } from '../core/duration.js';
import type { AttackOptions } from './commands/attack.js';
import type { AuditOptions } from './commands/audit.js';
import type { CheckTiersOptions } from './commands/check-tiers.js';
import { AUDIT_DEFAULTS } from '../audit/run-options.js';
import type { BenchOptions } from './commands/bench.js';
import type { CompareOptions } from './commands/compare.js';
import type { DistributedOptions } from './commands/distributed.js';
import type { FidelityOptions } from './commands/fidelity.js';
import type { PlaygroundOptions } from './commands/playground.js';
import type { RaceOptions } from './commands/race.js';
import type { ScenariosOptions } from './commands/scenarios.js';
import type { ServeOptions } from './commands/serve.js';
import type { RedisBenchOptions } from './redis-bench.js';
import type { ThreadBenchOptions } from './thread-bench.js';
import { ATTACK_DEFAULTS, DEFAULT_DISTRIBUTED_SCENARIO, DISTRIBUTED_DEFAULTS, SERVE_DEFAULTS } from './defaults.js';
import { COLOR_FLAGS, GATE_FLAGS, POLICY_FLAGS, REDIS_TARGET_FLAGS, SHARED_FLAGS } from './flag-groups.js';
import { defineCommand, flagsCommand, type CommandSpec } from './flag-spec.js';

// The CLI as a table (in the style of vitest's cli-config.ts): everything `--help` shows,
// and per command a `load` that imports its module only when it runs. Building the parser
// from this table loads no command module, so `ratelab --help` and a light command do not
// pay for the lab behind the others (zod, yaml, tinybench, the CSV and chart packages,
// ioredis). Only type imports from the command modules: they vanish when compiled. Each
// command's flags are typed against its options (flag-spec.ts); the flags several commands
// share are declared once (flag-groups.ts), the output formats in the registry (outputs.ts).

const { limit, window, burst, seed } = POLICY_FLAGS;
const { algorithm, algorithms, allowRemote, bucket, chart, limiterTimeout, maxArrivals, skipBadLines, trace } =
  SHARED_FLAGS;

/** `ratelab bench redis`: the Redis token bucket against rate-limiter-flexible on a real Redis. */
const BENCH_REDIS = flagsCommand<RedisBenchOptions>({
  name: 'redis',
  description: 'the Redis token bucket, batched and per call, vs rate-limiter-flexible on a real Redis (docs/redis.md)',
  flags: {
    redis: {
      ...REDIS_TARGET_FLAGS.redis,
      required: true,
      description: 'the Redis to measure on, e.g. redis://127.0.0.1:6380 (loopback only unless --allow-remote)',
    },
    allowRemote: REDIS_TARGET_FLAGS.allowRemote,
    quick: { description: '3 rounds of 5 000 calls' },
    rounds: { value: '<n>', description: 'rounds, each contender in turn (default 7)' },
    json: { output: "every round's figures" },
  },
  load: async () => (await import('./redis-bench.js')).redisBenchCommand,
});

/** `ratelab bench threads`: the shared limiter on worker threads. */
const BENCH_THREADS = defineCommand<ThreadBenchOptions, 'counts'>()({
  name: 'threads',
  description:
    'the shared limiter on worker threads, per-key locks vs one global lock, hot key and 1e4 keys (docs/shared.md)',
  arguments: [{ syntax: '<counts>', description: 'thread counts, comma-separated, e.g. 1,2,4' }],
  flags: {
    time: { value: '<duration>', description: 'measuring time per round (default 1s)' },
    rounds: { value: '<n>', description: 'rounds, the median taken (default 3)' },
    algorithms: { ...algorithms, description: 'the algorithm: the first named (default token-bucket)' },
    json: { output: 'the plan, the machine and every figure' },
  },
  options: (flags, [counts]) => ({ ...flags, counts }),
  load: async () => (await import('./thread-bench.js')).threadBenchCommand,
});

/** Every command, in the order `--help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  flagsCommand<Record<string, never>>({
    name: 'algorithms',
    description: 'list the algorithms and what each keeps per key',
    flags: {},
    load: async () => (await import('./commands/algorithms.js')).algorithmsCommand,
  }),
  defineCommand<CheckTiersOptions, 'file'>()({
    name: 'check-tiers',
    description: 'validate a tiers file (YAML or JSON) and summarise it',
    arguments: [{ syntax: '<file>', description: 'the tiers file' }],
    flags: { json: { output: 'each tier, its limits and its clients' } },
    options: (flags, [file]) => ({ ...flags, file }),
    load: async () => (await import('./commands/check-tiers.js')).checkTiersCommand,
  }),
  defineCommand<ServeOptions, 'signal' | 'onListening' | 'clock'>()({
    name: 'serve',
    description:
      'run a demo API behind the 429 middleware (client id from an X-API-Key the tiers file lists, else the address); stop with Ctrl-C',
    flags: {
      tiers: {
        value: '<file>',
        description: 'a tiers file (YAML or JSON): X-API-Key picks the client, the file its tier',
      },
      port: { value: '<port>', description: 'TCP port (0: any free port)', default: String(SERVE_DEFAULTS.port) },
      host: { value: '<host>', description: 'address to listen on', default: SERVE_DEFAULTS.host },
      algorithm: { ...algorithm, description: `without --tiers: the algorithm (default ${SERVE_DEFAULTS.algorithm})` },
      limit: { ...limit, description: `without --tiers: requests per window (default ${SERVE_DEFAULTS.limit})` },
      window: { ...window, description: `without --tiers: the window, e.g. 1s, 1m (default ${SERVE_DEFAULTS.window})` },
      burst: { ...burst, description: 'without --tiers: bucket capacity (token-bucket, gcra)' },
      trustProxy: {
        value: '<hops|addresses>',
        description: 'believe X-Forwarded-For: a number of proxy hops, or proxy addresses/CIDRs, comma-separated',
      },
      trustApiKeys: {
        description:
          'every X-API-Key is a client of its own, as `attack` sends scenario keys (a made-up key buys a fresh quota: for the lab only)',
      },
      log: { description: 'log every request even when stdout is not a terminal' },
      quiet: { description: 'no per-request log lines' },
      metrics: {
        description:
          'expose /metrics (Prometheus text: ratelab_decisions_total per tier and outcome) on the same port, neither limited nor counted (needs prom-client)',
      },
      metricsPort: {
        value: '<port>',
        description: 'serve /metrics on this port instead (same --host; implies --metrics; 0: any free port)',
      },
      shadowHeaders: {
        value: '<none|as-enforced>',
        description:
          'rate-limit headers of the tiers in mode: shadow: none (default) or those enforcing would send, Retry-After aside',
      },
    },
    options: (flags, _args, io) => ({ ...flags, signal: io.interrupts?.() }),
    load: async () => (await import('./commands/serve.js')).serveCommand,
  }),
  defineCommand<AttackOptions, 'url' | 'scenario' | 'signal'>()({
    name: 'attack',
    description:
      'replay a scenario (or a trace) against a live HTTP endpoint in real time and report what it really enforced; loopback only unless --allow-remote',
    arguments: [
      { syntax: '<url>', description: 'the endpoint, e.g. http://127.0.0.1:8080/ (ratelab serve)' },
      { syntax: '[scenario]', description: 'a built-in scenario name or a scenario file' },
    ],
    flags: {
      trace: {
        ...trace,
        description:
          "replay a recorded trace instead (judged by --limit/--window, else by the endpoint's RateLimit-Policy)",
      },
      skipBadLines,
      speed: {
        value: '<x>',
        description: 'scenario time per wall time: 10 replays ten times faster',
        default: String(ATTACK_DEFAULTS.speed),
      },
      duration: { value: '<duration>', description: 'replay only the first part of the scenario (scenario time)' },
      keyHeader: {
        value: '<name>',
        description: "the header carrying each request's key",
        default: ATTACK_DEFAULTS.keyHeader,
      },
      align: {
        value: '<duration>',
        description:
          "keep the replay's phase against this period of epoch time: time t is sent when the clock is congruent to t / speed (lines up with the endpoint's fixed windows)",
      },
      limit: {
        ...limit,
        description:
          "judge by this limit (with --window; default: the endpoint's RateLimit-Policy, else, for a scenario, its own)",
      },
      window: {
        ...window,
        description:
          'judge by this window, in wall time (alone: the limit is read from RateLimit-Policy, else X-RateLimit-Limit)',
      },
      bucket: {
        ...bucket,
        description:
          "timeline bucket, wall time (default: the scenario's, time-scaled; for a trace, the judged window)",
      },
      connections: {
        value: '<n>',
        description: 'most requests in flight (and connections open)',
        default: String(ATTACK_DEFAULTS.connections),
      },
      maxRequests: {
        value: '<n>',
        description: 'send at most this many requests',
        default: String(ATTACK_DEFAULTS.maxRequests),
      },
      maxTime: {
        value: '<duration>',
        description:
          'stop after this much wall time: nothing more is sent, requests in flight are aborted, the report covers what was measured',
        default: ATTACK_DEFAULTS.maxTime,
      },
      timeout: {
        value: '<duration>',
        description:
          'a request without its complete response (headers and body) after this long is cut off and counted as an error',
        default: ATTACK_DEFAULTS.timeout,
      },
      probe: { negate: true, description: 'do not retry at Retry-After to check it' },
      allowRemote,
      metricsUrl: {
        value: '<url>',
        description:
          "the server's Prometheus /metrics (ratelab serve --metrics), read before and after the run: its own counts per outcome beside the client's (loopback unless --allow-remote)",
      },
      csv: { output: 'the row' },
      json: { output: 'the report, with an attack section,' },
      html: { output: 'the endpoint against the exact oracle, response times, Retry-After honesty' },
      ...GATE_FLAGS,
      chart,
      ...COLOR_FLAGS,
    },
    options: (flags, [url, scenario], io) => ({ ...flags, url, scenario, signal: io.interrupts?.() }),
    load: async () => (await import('./commands/attack.js')).attackCommand,
  }),
  defineCommand<AuditOptions, 'url' | 'signal' | 'audit'>()({
    name: 'audit',
    description:
      'probe a live HTTP endpoint and infer its limiter: algorithm, limit, scope, denial, whether its headers tell the truth and whether it holds under concurrency (docs/audit.md); loopback only unless --allow-remote',
    arguments: [{ syntax: '<url>', description: 'the endpoint, e.g. http://127.0.0.1:8080/ (http only)' }],
    flags: {
      path: {
        value: '<path>',
        repeatable: true,
        description: 'another path on the same origin (repeatable): do the paths share one budget or have one each?',
      },
      keyHeader: {
        value: '<name>',
        description: 'the header that names a client, e.g. X-API-Key or Authorization (fresh values give fresh quotas)',
      },
      inFlight: {
        value: '<n>',
        description: 'requests in flight at once for the concurrency probe',
        default: String(AUDIT_DEFAULTS.inFlight),
      },
      maxTime: {
        value: '<duration>',
        description: 'stop after this much wall time (a hard bound: the report says what was learned)',
        default: AUDIT_DEFAULTS.maxTime,
      },
      maxRequests: {
        value: '<n>',
        description: 'send at most this many requests in all (a hard bound)',
        default: String(AUDIT_DEFAULTS.maxRequests),
      },
      timeout: {
        value: '<duration>',
        description: 'a request without its complete response after this long counts as an error',
        default: AUDIT_DEFAULTS.timeout,
      },
      soak: {
        value: '<duration>',
        description: 'also send at the inferred rate this long and judge it against the exact oracle',
      },
      allowRemote,
      metricsUrl: {
        value: '<url>',
        description:
          "the server's Prometheus /metrics (ratelab serve --metrics), read before and after the run: its own counts per outcome beside the client's (loopback unless --allow-remote)",
      },
      expect: {
        value: '<claim>',
        description:
          'CI gate: exit 1 naming each mismatch with this claim, e.g. "token-bucket 20/1s burst 40 per header X-API-Key"',
      },
      expectFile: { value: '<file>', description: 'CI gate: the claim is a tier of this tiers file (with --tier)' },
      tier: { value: '<name>', description: 'the tier of --expect-file whose policy is the claim' },
      json: { output: 'the audit (format 1, docs/audit.md)' },
      html: { output: "the summary, the findings and each probe's requests over time against the oracle" },
      ...COLOR_FLAGS,
    },
    options: (flags, [url], io) => ({ ...flags, url, signal: io.interrupts?.() }),
    load: async () => (await import('./commands/audit.js')).auditCommand,
  }),
  defineCommand<CompareOptions, 'scenarios'>()({
    name: 'compare',
    description:
      'replay scenarios (all built-ins by default), scenario files or a trace through every algorithm, side by side',
    arguments: [{ syntax: '[scenarios...]', description: 'built-in scenario names or scenario YAML files' }],
    flags: {
      algorithms: { ...algorithms, description: 'comma-separated algorithms to compare (default: all)' },
      limiter: {
        value: '<module>',
        description: 'also run your own limiter: a module exporting (policy, { clock }) => { consume(key, cost) }',
      },
      limiterTimeout,
      trace: {
        ...trace,
        description:
          'replay a recorded trace (CSV time_ms,key[,cost], JSON lines, or an access log) instead of scenarios',
      },
      skipBadLines: {
        ...skipBadLines,
        description: 'skip malformed or out-of-order trace lines (and say how many) instead of failing',
      },
      limit: { ...limit, description: 'policy limit (overrides the scenario; required with --trace)' },
      window: { ...window, description: 'policy window, e.g. 1s (overrides the scenario; required with --trace)' },
      burst,
      policy: {
        value: '<list>',
        description:
          'the whole policy as LIMIT/WINDOW entries, e.g. 20/1s,1000/1h: several are a composite, every algorithm enforcing all at once (instead of --limit/--window/--burst)',
      },
      seed,
      bucket: { ...bucket, description: "timeline bucket width (default: the scenario's, or the window for a trace)" },
      csv: { output: 'one row per scenario x algorithm' },
      json: { output: 'the rows and timelines' },
      html: { output: 'zoomable charts of the worst keys, request strips' },
      prom: { output: "each algorithm's allowed and denied counts per scenario (the series serve --metrics exposes)" },
      chart,
      ...COLOR_FLAGS,
      measure: { negate: true, description: 'skip measuring memory and speed (every other column is deterministic)' },
      strip: {
        description:
          'after the charts, the request strip of one key: per algorithm, its requests over time admitted or denied',
      },
      key: { value: '<name>', description: 'the key the charts and the strip follow (default: the worst key)' },
      from: {
        value: '<duration>',
        description:
          "show the charts and the strip from this time since the run's start (a trace's first arrival), e.g. 900ms",
      },
      to: {
        value: '<duration>',
        description: "show the charts and the strip up to this time since the run's start, e.g. 1100ms",
      },
      detail: {
        description:
          "each scenario's table and charts, not just its sentence (implied when naming one or two scenarios, or with --trace)",
      },
      ...GATE_FLAGS,
      maxArrivals,
      sweepLimit: {
        value: '<limits>',
        description:
          'replay nothing: measure memory per full key of each algorithm at each limit, e.g. 10,100,1000,10000 (a log-log chart; --csv a row per algorithm x limit)',
      },
    },
    options: (flags, [scenarios]) => ({ ...flags, scenarios }),
    load: async () => (await import('./commands/compare.js')).compareCommand,
  }),
  defineCommand<DistributedOptions, 'scenario'>()({
    name: 'distributed',
    description:
      'spread a scenario over N simulated nodes and compare distributed designs against the global limit (no Redis needed)',
    arguments: [
      {
        syntax: '[scenario]',
        description: `a built-in scenario name or a scenario YAML file (default: ${DEFAULT_DISTRIBUTED_SCENARIO})`,
      },
    ],
    flags: {
      nodes: { value: '<n>', description: `nodes behind the load balancer (default ${DISTRIBUTED_DEFAULTS.nodes})` },
      strategy: {
        value: '<list>',
        description: 'central, local-split, sync, comma-separated (default: all, side by side)',
      },
      sync: {
        value: '<duration>',
        description: `sync period of the sync design (default ${formatDuration(DISTRIBUTED_DEFAULTS.syncMs)})`,
      },
      rtt: {
        value: '<duration>',
        description: `round trip to the store: added to each central decision, delay of each sync (default ${formatDuration(DISTRIBUTED_DEFAULTS.rttMs)})`,
      },
      timeout: {
        value: '<duration>',
        description: `how long a call to an unreachable store waits (default ${formatDuration(DISTRIBUTED_DEFAULTS.timeoutMs)})`,
      },
      outage: {
        value: '<start-end>',
        description: 'the store is unreachable in this span of the scenario, e.g. 10s-20s',
      },
      failMode: {
        value: '<list>',
        description: 'open, closed, local, comma-separated (default: all three with --outage, else open)',
      },
      balance: {
        value: '<kind>',
        description: `even (round robin) or skewed (Zipf over nodes) (default ${DISTRIBUTED_DEFAULTS.balance})`,
      },
      algorithm: {
        ...algorithm,
        description: `algorithm of the shared and the per-node limiters (default ${DISTRIBUTED_DEFAULTS.algorithm})`,
      },
      maxArrivals,
      limit: { ...limit, description: 'global policy limit (overrides the scenario)' },
      window,
      burst,
      seed: { ...seed, description: 'random seed of the traffic and the load balancer (overrides the scenario)' },
      csv: { output: 'one row per design' },
      json: { output: 'the rows and timelines' },
      html: { output: 'per-design lines, the outage shaded' },
      chart,
      ...COLOR_FLAGS,
    },
    options: (flags, [scenario]) => ({ ...flags, ...(scenario === undefined ? {} : { scenario }) }),
    load: async () => (await import('./commands/distributed.js')).distributedCommand,
  }),
  defineCommand<FidelityOptions, 'checks'>()({
    name: 'fidelity',
    description:
      'check published claims about rate limiters (Figma, Cloudflare, sch_tbf.c, ITU-T I.371...) against seeded measurements; exit 1 when one is not reproduced',
    flags: {
      redis: {
        ...REDIS_TARGET_FLAGS.redis,
        description:
          'the Redis the redis check measures a Lua script on, per request (loopback only unless --allow-remote); skipped without it',
      },
      allowRemote: REDIS_TARGET_FLAGS.allowRemote,
      only: {
        value: '<names>',
        description:
          'run only these checks, comma-separated (design, edge, token-bucket, gcra, nodes, cloudflare, redis)',
      },
      seed: { ...seed, description: 'random seed of the suite (the README shows the default)' },
      csv: { output: 'one row per case' },
      json: { output: 'the cases' },
    },
    options: (flags) => flags,
    load: async () => (await import('./commands/fidelity.js')).fidelityCommand,
  }),
  defineCommand<PlaygroundOptions, 'signal' | 'onListening'>()({
    name: 'playground',
    description:
      'write a self-contained HTML page running the five limiters and the exact oracle in the browser, to poke at with a clock you control (docs/lab.md)',
    flags: {
      html: { output: 'the playground (default file ratelab-playground.html)' },
      serve: { description: 'serve the page on a loopback port (127.0.0.1) and print its URL; stop with Ctrl-C' },
      port: { value: '<port>', description: 'with --serve: the TCP port (default 0: any free port)' },
    },
    options: (flags) => flags,
    load: async () => (await import('./commands/playground.js')).playgroundCommand,
  }),
  flagsCommand<ScenariosOptions>({
    name: 'scenarios',
    description: 'list the built-in scenarios and what each teaches',
    flags: {
      schema: { description: "print the scenario file's JSON Schema (also shipped as scenarios/scenario.schema.json)" },
      template: { description: 'print a commented example scenario to start from' },
    },
    load: async () => (await import('./commands/scenarios.js')).scenariosCommand,
  }),
  flagsCommand<RaceOptions>({
    name: 'race',
    description:
      'race a naive GET-then-SET limiter against the Lua script on a real Redis, and count what each admits over the limit',
    flags: {
      redis: {
        ...REDIS_TARGET_FLAGS.redis,
        required: true,
        description: 'the Redis to race on, e.g. redis://127.0.0.1:6380 (loopback only unless --allow-remote)',
      },
      allowRemote: REDIS_TARGET_FLAGS.allowRemote,
      algorithm: { ...algorithm, description: 'the Lua limiter to race (default token-bucket)' },
      limit: { ...limit, description: 'the limit on the one key (default 1000)' },
      connections: { value: '<n>', description: 'Redis connections racing (default 4)' },
      inFlight: { value: '<n>', description: 'calls in flight per connection (default 50)' },
      requests: { value: '<n>', description: 'requests in all (default twice the limit)' },
    },
    load: async () => (await import('./commands/race.js')).raceCommand,
  }),
  flagsCommand<BenchOptions>({
    name: 'bench',
    description:
      'measure decisions/s and memory per key of every algorithm against a reference; compare with a baseline',
    flags: {
      quick: { description: 'the CI run: hot key and 1e4 keys, algorithms only (how long: docs/bench.md)' },
      time: { value: '<duration>', description: 'measuring time per task over all rounds (default 1s, quick 320ms)' },
      rounds: {
        value: '<n>',
        description: 'repeated measurements per task, over two processes, for the noise test (default 10, quick 8)',
      },
      keys: { value: '<counts>', description: 'key counts of the round-robin workloads (default 1e4,1e6)' },
      algorithms,
      limiter: { value: '<module>', description: 'also measure your limiter module (repeatable)', repeatable: true },
      limiterTimeout,
      peers: { negate: true, description: 'skip rate-limiter-flexible, limiter and express-rate-limit' },
      memoryKeys: { value: '<n>', description: 'keys of the memory probe, 0 to skip it (default 1e6)' },
      json: { output: 'every figure' },
      csv: { output: 'every figure' },
      baseline: { value: '<file>', description: 'compare with a saved --json run; exit 1 on a regression' },
      maxRegression: {
        value: '<percent>',
        description: 'a drop of the ratio to the reference beyond this counts (default 10%)',
      },
      updateBaseline: { description: 'write this run to the --baseline file (atomically)' },
      format: {
        value: '<format>',
        description:
          'what --json writes: ratelab (the run, with the comparison and verdict under --baseline), github-action-benchmark (speed ratios, customBiggerIsBetter) or github-action-benchmark-memory (B/key, customSmallerIsBetter); default ratelab',
      },
      quiet: { description: 'print only the regressions and the verdict' },
      goals: { description: "also check ratelab's own speed and memory goals" },
      ...COLOR_FLAGS,
      redis: { ...REDIS_TARGET_FLAGS.redis, hidden: true, description: 'deprecated: bench redis --redis URL' },
      allowRemote: { ...REDIS_TARGET_FLAGS.allowRemote, hidden: true },
      threads: { value: '<counts>', hidden: true, description: 'deprecated: bench threads COUNTS' },
    },
    load: async () => (await import('./commands/bench.js')).benchCommand,
    subcommands: [BENCH_REDIS, BENCH_THREADS],
  }),
];
