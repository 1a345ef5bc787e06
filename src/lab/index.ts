// `ratelab/lab`: what the CLI is built from, for programs that run the lab themselves:
// scenarios, seeded traffic, replay on a virtual clock, accuracy metrics against the exact
// oracle, the distributed simulator and the live attack runner. It loads yaml, zod and the
// other lab packages; a limiter alone needs only `ratelab`. Times are milliseconds.

// Scenarios (scenarios/*.yaml): parse and validate.
/** Reads and validates a scenario file; throws `FILE_NOT_FOUND`, `FILE_UNREADABLE` or `INVALID_SCENARIO` listing every problem by line. */
export { loadScenario } from '../scenario/load-scenario.js';
/** Validates the text of a scenario (`source` names it in messages). */
export { parseScenario } from '../scenario/load-scenario.js';
/** A scenario with some fields replaced (policy, duration in ms, seed...). */
export { withOverrides } from '../scenario/load-scenario.js';
/** Fields {@link withOverrides} may replace. */
export type { ScenarioOverrides } from '../scenario/load-scenario.js';
/** The package's scenarios/ folder (absolute path, trailing separator). */
export { BUILTIN_DIR } from '../scenario/builtins.js';
/** The built-in scenarios, in teaching order. */
export { builtinScenarios } from '../scenario/builtins.js';
/** A built-in's name or a YAML path (from `cwd`) as a scenario; throws `UNKNOWN_SCENARIO` naming the nearest built-in. */
export { resolveScenario } from '../scenario/builtins.js';
/** Each source's arrivals estimated from the traffic model (expected; at most, for retry clients), before anything runs. */
export { estimateArrivals } from '../scenario/arrival-estimate.js';
/** Refuses a scenario making more than `cap` arrivals (`TOO_MANY_ARRIVALS`, naming the file, source and figure); the CLI's default cap, 20,000,000 (`--max-arrivals`). */
export { checkArrivalCap, DEFAULT_MAX_ARRIVALS } from '../scenario/arrival-estimate.js';
/** One source's estimate: its field (`sources[0]`), arrivals, and how the figure comes about. */
export type { SourceEstimate } from '../scenario/arrival-estimate.js';
/** A validated scenario and its traffic sources. */
export type {
  BurstSourceSpec,
  KeySpec,
  OnOffSourceSpec,
  ParetoSpec,
  RateSourceSpec,
  RetrySourceSpec,
  Scenario,
  SourceSpec,
} from '../scenario/scenario.js';

// Traffic: seeded arrivals, or a recorded trace.
/** A fresh, deterministic stream of a scenario's arrivals (same seed, same arrivals). */
export { openScenario } from '../traffic/stream.js';
/** Merges sources into one time-ordered stream of arrivals, cut at `endMs`. */
export { TrafficStream } from '../traffic/stream.js';
/** The generator of one source spec, drawing from a {@link Random}. */
export { createSource } from '../traffic/stream.js';
/** A seeded random source (xoroshiro128+); stream `n` of a seed is independent of the others. */
export { Random } from '../traffic/random.js';
/** Picks each request's key per a KeySpec (uniform, Zipf): O(1) per pick. */
export { KeyPicker } from '../traffic/keys.js';
/** A recorded trace (CSV, JSON lines, or an access log) as a traffic source; throws `INVALID_TRACE` as `file:line: why`. */
export { TraceSource } from '../traffic/trace/trace-source.js';
/** The largest time the lab takes, ms: 8.64e15 (100,000,000 days, a JavaScript Date's range); a trace line past it is `INVALID_TRACE`. */
export { MAX_TIME_MS } from '../core/duration.js';
/** An arrival (`t` in ms, `key`, `cost`) and a source of them. */
export type { Arrival, TrafficSource } from '../traffic/arrival.js';
/** A trace's options (`skipBadLines`, a label) and its counts (format, arrivals, lines skipped). */
export type { TraceOptions, TraceStats } from '../traffic/trace/trace-source.js';

// Replay on a virtual clock, and the comparison `ratelab compare` prints.
/** Replays a stream through one contender and measures it against the exact oracle. */
export { replay } from '../sim/replay.js';
/** Replays one stream through several contenders at once, arrival by arrival. */
export { replayLockstep } from '../sim/replay.js';
/** A replay's options (policy, window in ms) and its result (metrics, wall time). */
export type { ReplayOptions, ReplayResult } from '../sim/replay.js';
/** A built-in algorithm under a policy, as a contender; throws `INVALID_POLICY` now rather than mid-run. */
export { builtinContender } from '../sim/contender.js';
/** A user's limiter module (path from `cwd`) as a contender; throws `INVALID_LIMITER_MODULE`. */
export { moduleContender } from '../sim/contender.js';
/** A named limiter factory the lab replays (`Contender`), and the decide function it builds (`Decider`). */
export type { Contender, Decider } from '../sim/contender.js';
/** A scenario as a workload. */
export { scenarioWorkload } from '../sim/workload.js';
/** A trace file as a workload, read lazily once per replay. */
export { traceWorkload } from '../sim/workload.js';
/** A scenario or a trace, ready to replay. */
export type { Workload } from '../sim/workload.js';
/** Replays workloads through contenders and collects `compare`'s rows (memory and speed from child processes). */
export { compareWorkloads } from '../sim/compare.js';
/** `compareWorkloads`'s options (contenders, policy, what to measure). */
export type { CompareOptions } from '../sim/compare.js';
/** One row of a comparison (a contender on a workload) and a workload's rows. */
export type { ComparisonRow, WorkloadComparison } from '../sim/comparison.js';

// Metrics of a replay.
/** Collects a replay's metrics: accuracy, worst-window ratio, timeline, fairness. */
export { MetricsRecorder } from '../metrics/recorder.js';
/** The recorder's options, and the metrics of one replay. */
export type { RecorderOptions, ReplayMetrics } from '../metrics/recorder.js';
/** A replay's admitted and offered units per time bucket (ms). */
export type { Timeline } from '../metrics/timeline.js';
/** Most buckets a timeline holds (10,000): a longer span gets wider buckets, the width asked for times 2, 10, 20, 100... */
export { MAX_TIMELINE_BUCKETS } from '../metrics/timeline.js';
/** Jain's fairness index over shares: 1 all equal, down to 1/n; null for fewer than two. */
export { jainIndex } from '../metrics/fairness.js';

// The distributed simulator (`ratelab distributed`).
/** Replays a scenario through fleet designs (central, sync, local-split) against the exact global oracle. */
export { simulateDistributed } from '../sim/distributed/simulate.js';
/** A design's name in reports: `central`, `sync`, `local-split`, with an outage `central/open`. */
export { designName } from '../sim/distributed/simulate.js';
/** The simulator's result: one row per design. */
export type { DistributedComparison, DistributedRow } from '../sim/distributed/simulate.js';
/** The designs and balances the simulator knows, in report order. */
export { BALANCES, STRATEGIES } from '../sim/distributed/fleet-options.js';
/** The fail modes a design may have while the store is down (`open`, `closed`, `local`), in report order. */
export { FAIL_MODES } from '../core/fail-over.js';
/** A design's options (strategy, nodes, sync and round trip in ms, outage, fail mode). */
export type { Balance, FleetOptions, Strategy } from '../sim/distributed/fleet-options.js';
/** A fleet of nodes on a virtual clock, as one decider. */
export { Fleet } from '../sim/distributed/fleet.js';
/** Requests offered and admitted while the store was down. */
export type { OutageCounts } from '../sim/distributed/fleet.js';
/** How a distributed design decides (`Design`), and a simulated node's decision (`Verdict`). */
export type { Design, Verdict } from '../sim/distributed/design.js';
/** Picks each request's node: round robin (`even`) or seeded Zipf (`skewed`). */
export { LoadBalancer } from '../sim/distributed/load-balancer.js';
/** Parses `START-END` (`10s-20s`, `0-500ms`) into an outage in ms; throws `INVALID_ARGUMENT`. */
export { parseOutage } from '../sim/distributed/outage.js';
/** A window of ms during which the store is unreachable. */
export type { Outage } from '../sim/distributed/outage.js';
/** When each node last saw the others' counts, every `syncMs` plus `rttMs`. */
export { SyncSchedule } from '../sim/distributed/sync-schedule.js';
/** Network wait per request in a simulated fleet (ms percentiles). */
export type { AddedLatency } from '../sim/distributed/latency-tally.js';

// The audit (`ratelab audit`): what a live endpoint's limiter really does.
/** Probes an endpoint and infers its limiter (family, policy, scope, denial, headers, over-admission); bounded by `maxTimeMs` and `maxRequests`. */
export { runAudit } from '../audit/run-audit.js';
/** What `runAudit` takes, and its defaults as the CLI shows them. */
export type { AuditOptions, AuditProgress } from '../audit/run-options.js';
/** What `runAudit` learned: the `ratelab audit --json` document, format 1. */
export type { AuditReport, Family as AuditFamily } from '../audit/audit-report.js';

// The attack runner (`ratelab attack`, `ratelab serve`): live HTTP endpoints.
/** Sends a stream's requests to an endpoint at their times (wall ms), recording every response; never throws on network errors. */
export { runAttack } from '../attack/runner.js';
/** `Shot.error` of a request cut off by the run's own stop (`maxTimeMs`, the signal), not by the endpoint. */
export { ABORTED } from '../attack/shot.js';
/** Whether the endpoint admitted a request (any 2xx). */
export { isAdmitted } from '../attack/shot.js';
/** A response's Retry-After in ms; Infinity when absent or not whole seconds. */
export { retryAfterMsOf } from '../attack/shot.js';
/** An attack's options and result (its shots, why it stopped, how well it kept time). */
export type { AttackRun, AttackRunOptions, StopReason } from '../attack/runner.js';
/** An attack's requests: the events to send (scenario time `t` in ms, `key`) and the stream they come from. */
export type { AttackEvent, AttackStream } from '../attack/schedule.js';
/** One request and its response (`Shot`), and the rate-limit fields read from it. */
export type { RateLimitFields, Shot } from '../attack/shot.js';
/** Measures an attack like `compare` does a replay: accuracy, worst window, header problems, Retry-After honesty. */
export { analyzeAttack } from '../attack/analysis.js';
/** An attack's analysis and its parts. */
export type {
  AnalysisOptions,
  AttackAnalysis,
  JudgedPolicy,
  ResponseCounts,
  ResponseTimes,
  RetryAfterCheck,
} from '../attack/analysis.js';
/** The URL to attack, checked: http only, loopback unless `allowRemote`; throws `REMOTE_TARGET`, `ENDPOINT_UNAVAILABLE`. */
export { checkTarget } from '../attack/target.js';
/** A small API behind the rate-limit middleware (client id in the {@link API_KEY_HEADER} header). */
export { createDemoApi } from '../attack/demo-api.js';
/** `x-api-key`: the header naming a client (and its tier) to the demo API. */
export { API_KEY_HEADER } from '../attack/demo-api.js';
/** The demo API's options (limiter or tiers) and its request log. */
export type { DemoApiOptions, DemoRequestLog } from '../attack/demo-api.js';
/** Whether an IP address, or a URL's host without a lookup, is loopback. */
export { isLoopbackAddress, isLoopbackHost } from '../core/loopback.js';
