import { resolve } from 'node:path';
import { formatDuration, parseDuration } from '../../core/duration.js';
import { RatelabError } from '../../core/errors.js';
import { analyzeAttack, isDecided, type AttackAnalysis } from '../../attack/analysis.js';
import { runAttack, type AttackRun } from '../../attack/runner.js';
import { plannedEvents } from '../../attack/schedule.js';
import { ABORTED, type Shot } from '../../attack/shot.js';
import { checkTarget } from '../../attack/target.js';
import { unsendableKey } from '../../attack/header-key.js';
import { missingPolicy, readPolicy, type GivenPolicy, type JudgedPolicy } from '../../attack/endpoint-policy.js';
import { attackComparison, type AttackReport } from '../../report/attack-report.js';
import { attackJson } from '../../report/data/attack-json.js';
import { renderCharts } from '../../report/text/compare-chart.js';
import { attackHtml } from '../../report/html/attack-html.js';
import { runSpan } from '../../report/chart-frame.js';
import { htmlFollowPlans, htmlGrid } from '../../report/html/html-views.js';
import { followShots } from '../../attack/follow-shots.js';
import { comparisonCsv } from '../../report/data/compare-csv.js';
import { comparisonJson } from '../../report/data/compare-json.js';
import { summarise } from '../../report/text/compare-summary.js';
import { renderComparison } from '../../report/text/compare-table.js';
import type { WorkloadComparison } from '../../sim/comparison.js';
import { colorEnabled, painter } from '../../report/text/color.js';
import { resolveScenario } from '../../scenario/builtins.js';
import type { Gates } from '../../sim/gates.js';
import type { Scenario } from '../../scenario/scenario.js';
import { scenarioWorkload, traceWorkload, type Workload } from '../../sim/workload.js';
import { gateFlags, usage, wholeNumberFlag, type GateFlags } from '../flags.js';
import type { ColorFlags } from '../flag-groups.js';
import { checkOutputs, writeFormats, type OutputTargets } from '../outputs.js';
import { interruptedExitCode } from '../exit-codes.js';
import { reportGates } from '../gates.js';
import type { Command, CommandIO } from '../../report/io.js';
import { createProgress } from '../progress.js';
import { terminalWidth } from '../terminal-width.js';
import { ATTACK_DEFAULTS } from '../defaults.js';
import { serverCounts, type ClientCounts } from '../server-counts.js';

/** Options of `ratelab attack` (flag values as text, as commander hands them over). */
export interface AttackOptions extends GateFlags, ColorFlags, OutputTargets<'csv' | 'json' | 'html'> {
  url: string;
  /** A built-in scenario's name or a scenario file; or `trace`. */
  scenario?: string;
  /** A recorded trace to replay instead (judged by --limit/--window, else by the endpoint's fields). */
  trace?: string;
  skipBadLines?: boolean;
  /** Scenario ms per wall ms (default 1): 10 replays ten times faster. */
  speed?: string | number;
  /** Replay only the first part of the scenario (scenario time). */
  duration?: string;
  /** The header carrying each event's key (default X-API-Key, as `ratelab serve` reads). */
  keyHeader?: string;
  /** Keep the replay's phase against this period of epoch time: time t leaves at an epoch time congruent to t / speed (line up with the endpoint's fixed windows). */
  align?: string;
  /**
   * The policy to judge the endpoint by, in wall time: both flags; or `window` alone with
   * the limit read from the responses; or neither, read from RateLimit-Policy (a scenario
   * falls back on its own policy, time-scaled).
   */
  limit?: string | number;
  window?: string;
  /** Timeline bucket, wall time (default: the scenario's, time-scaled; for a trace, the judged window). */
  bucket?: string;
  connections?: string | number;
  maxRequests?: string | number;
  maxTime?: string;
  timeout?: string;
  /** False (`--no-probe`): do not retry at Retry-After to check it. */
  probe?: boolean;
  allowRemote?: boolean;
  /** --metrics-url URL: the server's /metrics, read before and after the run (see src/cli/server-counts.ts). */
  metricsUrl?: string;
  /** False with --no-chart. */
  chart?: boolean;
  signal?: AbortSignal;
}

/**
 * `ratelab attack URL SCENARIO`: replays a scenario (or a trace) against a live endpoint in
 * real time and reports what it really enforced, with compare's table, charts, CSV and
 * JSON. Everything is checked before the first request, except a policy to be read from
 * the responses, checked on the first decided one (exit 2, the run stopped). Exit 3 when
 * no request got any response; exit 1 when the row breaks a gate (after the report).
 * `options.signal` (SIGINT/SIGTERM) stops the run at once, cutting off the requests in
 * flight: the report covers what was measured, and the exit code says the run was cut
 * short (130, or 143 for SIGTERM; see `interruptedExitCode`), whatever the gates say.
 */
export const attackCommand: Command<AttackOptions> = async (options, io) => {
  const plan = planAttack(options, io);
  const url = await checkTarget(options.url, options.allowRemote === true);
  const metrics = await serverCounts(options.metricsUrl, options.allowRemote === true);
  io.stderr.write(
    `ratelab attack: ${plan.workload.name} against ${url.href} at ${plan.speed}x${plan.alignMs ? `, aligned to ${formatDuration(plan.alignMs)}` : ''}\n`,
  );
  const { run, policy } = await replay(plan, url, options, io);
  const unreachable = unreachableError(run, url);
  if (unreachable) throw unreachable;
  const analysis = analyzeAttack(run, { policy: policy(), ...timelineBuckets(plan, policy()) });
  warn(run, analysis, plan, io);
  // Read before the report is written, so that its JSON carries them; a failure is thrown once it is written.
  const counted = await metrics?.read(clientCounts(run.shots));
  const comparison = await writeReports(
    { url, workload: plan.workload, speed: plan.speed, run, analysis, serverCounts: counted?.counts },
    options,
    plan.toStdout,
    io,
  );
  if (metrics !== undefined && counted !== undefined) metrics.report(counted, plan.toStdout, io);
  const verdict = reportGates(comparison.rows, plan.gates, io);
  return options.signal?.aborted ? interruptedExitCode(options.signal.reason) : verdict;
};

/** What the client saw of every request it sent (the Retry-After probes too: the server decided them). */
function clientCounts(shots: readonly Shot[]): ClientCounts {
  let admitted = 0;
  let denied = 0;
  for (const shot of shots) {
    if (shot.status === 429) denied += 1;
    else if (shot.status !== undefined && shot.status >= 200 && shot.status < 300) admitted += 1;
  }
  return { requests: shots.length, admitted, denied };
}

/**
 * Runs the attack, with the progress line and the policy check; `policy()` is the policy
 * settled (it throws the reason when there is none).
 */
async function replay(
  plan: AttackPlan,
  url: URL,
  options: AttackOptions,
  io: CommandIO,
): Promise<{ run: AttackRun; policy: () => JudgedPolicy }> {
  const policyCheck = new PolicyCheck(plan);
  const stream = plan.workload.open();
  const progress = attackProgress(plan, io);
  const run = await runAttack({
    url,
    stream,
    originMs: plan.workload.originMs,
    speed: plan.speed,
    durationMs: plan.durationMs,
    keyHeader: plan.keyHeader,
    alignMs: plan.alignMs,
    connections: plan.connections,
    maxRequests: plan.maxRequests,
    maxTimeMs: plan.maxTimeMs,
    timeoutMs: plan.timeoutMs,
    probeRetryAfter: options.probe !== false,
    signal: options.signal ? AbortSignal.any([options.signal, policyCheck.signal]) : policyCheck.signal,
    onSend: progress.sent,
    onResponse: (shot) => policyCheck.heard(shot),
  }).finally(progress.stop);
  return { run, policy: () => policyCheck.judged() };
}

/** The timeline's bucket (--bucket, else the scenario's time-scaled, else the judged window) and length. */
function timelineBuckets(plan: AttackPlan, policy: JudgedPolicy): { bucketMs: number; minBuckets: number | undefined } {
  const bucketMs = plan.bucketMs ?? policy.windowMs;
  const wallMs = plan.durationMs / plan.speed;
  return { bucketMs, minBuckets: Number.isFinite(wallMs) ? Math.ceil(wallMs / bucketMs) : undefined };
}

/**
 * The policy to judge by, settled on the first decided response: when neither the flags
 * nor that response's fields (nor, with no flags, a scenario) give one, it aborts the run,
 * since nothing sent after could be judged.
 */
class PolicyCheck {
  private readonly controller = new AbortController();
  private settled: { policy: JudgedPolicy } | { problem: RatelabError } | undefined;
  readonly signal = this.controller.signal;

  constructor(private readonly plan: AttackPlan) {}

  /** Hears each response; the first decided one settles the policy. */
  heard(shot: Shot): void {
    if (this.settled !== undefined || !isDecided(shot)) return;
    this.settled = this.settle(shot);
    if ('problem' in this.settled) this.controller.abort();
  }

  /** The policy settled, or the reason there is none (thrown: exit 2). */
  judged(): JudgedPolicy {
    const settled = this.settled ?? this.settle(undefined);
    if ('problem' in settled) throw settled.problem;
    return settled.policy;
  }

  private settle(shot: Shot | undefined): { policy: JudgedPolicy } | { problem: RatelabError } {
    const { given, workload, speed } = this.plan;
    // --limit with --window needs no response: a run that got none is still judged.
    const read = readPolicy(shot?.headers ?? {}, given);
    if (read) return { policy: read };
    if (given.windowMs === undefined && workload.kind === 'scenario') {
      const { limit, windowMs } = workload.policy;
      return { policy: { limit, windowMs: windowMs / speed, source: { limit: 'scenario', window: 'scenario' } } };
    }
    const { flag, advice } = missingPolicy(shot?.headers, given);
    return { problem: usage(flag, `no policy to judge by: ${advice}`) };
  }
}

/** Progress on a terminal: the workload's requests sent of those planned, and the time. */
function attackProgress(plan: AttackPlan, io: CommandIO): { sent: (shot: Shot) => void; stop: () => void } {
  if (io.stderr.isTTY !== true) return { sent: () => undefined, stop: () => undefined };
  const planned = plannedEvents(plan.workload.open(), plan.workload.originMs, plan.durationMs, plan.maxRequests);
  const progress = createProgress(io);
  const started = performance.now();
  let sent = 0;
  let probes = 0;
  const show = () => {
    const of = planned === undefined ? '' : `/${planned}`;
    const extra = probes > 0 ? ` (+${probes} Retry-After probes)` : '';
    progress.update(
      `ratelab attack: ${sent}${of} requests sent${extra}, ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  };
  const timer = setInterval(show, 250);
  return {
    sent: (shot) => {
      if (shot.probeOf === undefined) sent += 1;
      else probes += 1;
    },
    stop: () => {
      clearInterval(timer);
      progress.done();
    },
  };
}

/** Writes the report where asked; returns the comparison it rendered (its row is what the gates judge). */
async function writeReports(
  report: AttackReport,
  options: AttackOptions,
  toStdout: boolean,
  io: CommandIO,
): Promise<WorkloadComparison> {
  const comparison = attackComparison(report);
  if (!toStdout) {
    io.stdout.write(`${renderComparison(comparison, painter(io, options.color), terminalWidth(io))}\n`);
    if (options.chart !== false)
      io.stdout.write(`${renderCharts(comparison, painter(io, options.color), colorEnabled(io, options.color))}\n`);
  }
  await writeFormats(
    options,
    {
      csv: () => comparisonCsv([comparison]),
      json: () => comparisonJson([comparison], [summarise(comparison)], attackJson(report)),
      html: () => attackPage(report, comparison),
    },
    io,
  );
  return comparison;
}

/** The HTML report: the keys of the worst window followed through the run, on the report's grid. */
function attackPage(report: AttackReport, comparison: WorkloadComparison): string {
  const span = runSpan(comparison);
  const plans = htmlFollowPlans(comparison.worstWindows, span);
  const followed = followShots(report.run, report.analysis.policy, comparison.rows[0]?.algorithm ?? 'endpoint', plans);
  return attackHtml(report, followed, htmlGrid(span));
}

interface AttackPlan {
  workload: Workload & { kind: 'scenario' | 'trace' };
  speed: number;
  /** Scenario (or trace) time replayed. */
  durationMs: number;
  /** Timeline bucket, wall ms; undefined for a trace without --bucket: the judged window. */
  bucketMs: number | undefined;
  keyHeader: string;
  alignMs: number | undefined;
  connections: number;
  maxRequests: number;
  maxTimeMs: number;
  timeoutMs: number;
  /** --limit and --window (--limit only with --window). */
  given: GivenPolicy;
  gates: Gates;
  toStdout: boolean;
}

/** Every flag checked, and the scenario loaded, before anything is sent. */
function planAttack(options: AttackOptions, io: CommandIO): AttackPlan {
  const speed = Number(options.speed ?? ATTACK_DEFAULTS.speed);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 1000)
    throw usage('--speed', `expected a number above 0 and at most 1000, got ${JSON.stringify(options.speed)}`);
  if (options.limit !== undefined && options.window === undefined)
    throw usage('--limit', 'give --window too (--window alone reads the limit from the responses)');
  const limit = options.limit === undefined ? undefined : wholeNumberFlag(options.limit, '--limit', 1);
  const windowMs = options.window === undefined ? undefined : parseDuration(options.window, '--window');
  const gates = gateFlags(options);
  const toStdout = checkOutputs(options, io.cwd);
  const keyHeader = checkHeaderName(options.keyHeader ?? ATTACK_DEFAULTS.keyHeader);
  const workload = chooseWorkload(options, { limit, windowMs }, keyHeader, io);
  const fullMs = workload.minBuckets === undefined ? Infinity : workload.minBuckets * workload.bucketMs;
  const durationMs =
    options.duration === undefined ? fullMs : Math.min(fullMs, parseDuration(options.duration, '--duration'));
  const maxRequests = wholeNumberFlag(
    options.maxRequests ?? ATTACK_DEFAULTS.maxRequests,
    '--max-requests',
    1,
    10_000_000,
  );
  // A trace's keys are checked as it is read (chooseWorkload): read the events the run would
  // send now, so a bad line fails (or is skipped) before the first request.
  if (workload.kind === 'trace') plannedEvents(workload.open(), workload.originMs, durationMs, maxRequests);
  return {
    workload,
    speed,
    durationMs,
    bucketMs: bucketFlag(options.bucket, workload, speed),
    keyHeader,
    alignMs: options.align === undefined ? undefined : parseDuration(options.align, '--align'),
    connections: wholeNumberFlag(options.connections ?? ATTACK_DEFAULTS.connections, '--connections', 1, 1024),
    maxRequests,
    maxTimeMs: parseDuration(options.maxTime ?? ATTACK_DEFAULTS.maxTime, '--max-time'),
    timeoutMs: parseDuration(options.timeout ?? ATTACK_DEFAULTS.timeout, '--timeout'),
    given: { limit, windowMs },
    gates,
    toStdout,
  };
}

function bucketFlag(bucket: string | undefined, workload: AttackPlan['workload'], speed: number): number | undefined {
  if (bucket !== undefined) return parseDuration(bucket, '--bucket');
  return workload.kind === 'scenario' ? Math.max(1, Math.round(workload.bucketMs / speed)) : undefined;
}

/**
 * The scenario, or the trace. A trace has no policy of its own: the one it carries here
 * is a placeholder (the policy is judged from the flags or the responses, and the
 * timeline's buckets default to the judged window).
 */
function chooseWorkload(
  options: AttackOptions,
  given: GivenPolicy,
  keyHeader: string,
  io: CommandIO,
): AttackPlan['workload'] {
  if (options.trace === undefined) {
    if (options.scenario === undefined)
      throw usage('SCENARIO', 'expected a built-in scenario name or a scenario file (or --trace FILE)');
    return {
      ...scenarioWorkload(checkScenarioKeys(resolveScenario(options.scenario, io.cwd), keyHeader)),
      kind: 'scenario',
    };
  }
  if (options.scenario !== undefined)
    throw usage(
      '--trace',
      `give either a scenario or --trace, not both (got ${options.scenario} and --trace ${options.trace})`,
    );
  const policy = { limit: given.limit ?? 1, windowMs: given.windowMs ?? 1000 };
  const checkKey = (key: string) => unsendableKey(key, `--key-header ${keyHeader}`);
  return {
    ...traceWorkload(resolve(io.cwd, options.trace), policy, {
      label: options.trace,
      skipBadLines: options.skipBadLines ?? false,
      checkKey,
    }),
    kind: 'trace',
  };
}

/**
 * Refuses a scenario whose keys a header cannot carry unchanged (see unsendableKey): its
 * keys are its sources' prefixes followed by digits, so the prefixes tell.
 */
function checkScenarioKeys(scenario: Scenario, keyHeader: string): Scenario {
  for (const [i, source] of scenario.sources.entries()) {
    const { prefix, count } = source.keys;
    const problem = unsendableKey(count === 1 ? prefix : `${prefix}0`, `--key-header ${keyHeader}`);
    if (problem !== undefined)
      throw new RatelabError('INVALID_SCENARIO', `${scenario.file}: sources[${i}].keys: ${problem}`, {
        field: `sources[${i}].keys`,
      });
  }
  return scenario;
}

function checkHeaderName(name: string): string {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
    throw usage('--key-header', `expected an HTTP header name, got ${JSON.stringify(name)}`);
  return name;
}

/** `ENDPOINT_UNAVAILABLE` when requests were sent and none got a response (not even its headers). */
function unreachableError(run: AttackRun, url: URL): RatelabError | undefined {
  if (run.shots.length === 0 || run.shots.some((shot) => shot.headersMs !== undefined)) return undefined;
  const codes = [...new Set(run.shots.map((shot) => shot.error ?? 'unknown'))].join(', ');
  return new RatelabError(
    'ENDPOINT_UNAVAILABLE',
    `no response from ${url.host}: ${codes} (${run.shots.length} of ${run.shots.length} requests failed)`,
    { field: 'URL' },
  );
}

/** Messages about how far the run can be trusted, on stderr. */
function warn(run: AttackRun, analysis: AttackAnalysis, plan: AttackPlan, io: CommandIO): void {
  const say = (text: string) => io.stderr.write(`ratelab attack: ${text}\n`);
  const aborted = run.shots.filter((shot) => shot.error === ABORTED).length;
  const cut = aborted > 0 ? `; ${aborted} in flight aborted` : '';
  if (run.stoppedBy === 'interrupted')
    say(`interrupted: the report covers the ${run.shots.length} requests sent so far${cut}`);
  if (run.stoppedBy === 'max-requests')
    say(`stopped at --max-requests ${plan.maxRequests}; ${run.unsent} events not sent${cut}`);
  if (run.stoppedBy === 'max-time')
    say(`stopped at --max-time ${formatDuration(plan.maxTimeMs)}; ${run.unsent} events not sent${cut}`);
  if (run.maxLagMs > analysis.policy.windowMs / 10)
    say(
      `requests left up to ${Math.round(run.maxLagMs)} ms late (over a tenth of the window): lower --speed or raise --connections`,
    );
}
