import { resolve } from 'node:path';
import { formatDuration, parseDuration } from '../../duration.js';
import { RatelabError } from '../../errors.js';
import { advertisedPolicy, analyzeAttack, type AttackAnalysis, type JudgedPolicy } from '../../http/attack-analysis.js';
import { runAttack, type AttackRun } from '../../http/attack-runner.js';
import { checkTarget } from '../../http/attack-target.js';
import { attackComparison, attackJson, type AttackReport } from '../../report/attack-report.js';
import { renderCharts } from '../../report/compare-chart.js';
import { comparisonCsv } from '../../report/compare-csv.js';
import { comparisonJson } from '../../report/compare-json.js';
import { summarise } from '../../report/compare-summary.js';
import { renderComparison } from '../../report/compare-table.js';
import { colorEnabled, painter } from '../../report/color.js';
import { writeOutput } from '../../report/write-output.js';
import { resolveScenario } from '../../scenario/builtins.js';
import { scenarioWorkload, traceWorkload, type Workload } from '../../sim/workload.js';
import { EXIT } from '../exit-codes.js';
import { wholeNumberFlag } from '../flags.js';
import type { Command, CommandIO } from '../io.js';
import { checkOutputs } from './compare.js';

/** Options of `ratelab attack` (flag values as text, as commander hands them over). */
export interface AttackOptions {
  url: string;
  /** A built-in scenario's name or a scenario file; or `trace`. */
  scenario?: string;
  /** A recorded trace to replay instead (needs --limit and --window). */
  trace?: string;
  skipBadLines?: boolean;
  /** Scenario ms per wall ms (default 1): 10 replays ten times faster. */
  speed?: string | number;
  /** Replay only the first part of the scenario (scenario time). */
  duration?: string;
  /** The header carrying each event's key (default X-API-Key, as `ratelab serve` reads). */
  keyHeader?: string;
  /** Start on a multiple of this in epoch time (line up with the endpoint's fixed windows). */
  align?: string;
  /** The policy to judge the endpoint by, in wall time (default: its RateLimit-Policy, else the scenario's). */
  limit?: string | number;
  window?: string;
  /** Timeline bucket, wall time (default: the scenario's, time-scaled). */
  bucket?: string;
  connections?: string | number;
  maxRequests?: string | number;
  maxTime?: string;
  timeout?: string;
  /** False (`--no-probe`): do not retry at Retry-After to check it. */
  probe?: boolean;
  allowRemote?: boolean;
  csv?: string;
  json?: string;
  chart?: boolean;
  color?: boolean;
  signal?: AbortSignal;
}

export const ATTACK_DEFAULTS = { speed: 1, keyHeader: 'X-API-Key', connections: 16, maxRequests: 10_000, maxTime: '5m', timeout: '5s' } as const;

/**
 * `ratelab attack URL SCENARIO`: replays a scenario (or a trace) against a live endpoint in
 * real time and reports what it really enforced, with compare's table, charts, CSV and
 * JSON. Everything is checked before the first request; exit 3 when no request got any
 * response.
 */
export const attackCommand: Command<AttackOptions> = async (options, io) => {
  const plan = planAttack(options, io);
  const url = await checkTarget(options.url, options.allowRemote === true);
  io.stderr.write(`ratelab attack: ${plan.workload.name} against ${url.href} at ${plan.speed}x${plan.alignMs ? `, aligned to ${formatDuration(plan.alignMs)}` : ''}\n`);
  const run = await runAttack({
    url,
    stream: plan.workload.open(),
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
    signal: options.signal,
  });
  const unreachable = unreachableError(run, url);
  if (unreachable) throw unreachable;
  const wallMs = plan.durationMs / plan.speed;
  const minBuckets = Number.isFinite(wallMs) ? Math.ceil(wallMs / plan.bucketMs) : undefined;
  const analysis = analyzeAttack(run, { policy: judgedPolicy(plan, run), bucketMs: plan.bucketMs, minBuckets });
  warn(run, analysis, plan, io);
  await writeReports({ url, workload: plan.workload, speed: plan.speed, run, analysis }, options, plan.toStdout, io);
  return EXIT.OK;
};

async function writeReports(report: AttackReport, options: AttackOptions, toStdout: boolean, io: CommandIO): Promise<void> {
  const comparison = attackComparison(report);
  if (!toStdout) {
    io.stdout.write(`${renderComparison(comparison, painter(io, options.color))}\n`);
    if (options.chart !== false) io.stdout.write(`${renderCharts(comparison, painter(io, options.color), colorEnabled(io, options.color))}\n`);
  }
  if (options.csv !== undefined) await writeOutput(options.csv, comparisonCsv([comparison]), io);
  if (options.json !== undefined) await writeOutput(options.json, comparisonJson([comparison], [summarise(comparison)], attackJson(report)), io);
}

interface AttackPlan {
  workload: Workload;
  speed: number;
  /** Scenario (or trace) time replayed. */
  durationMs: number;
  bucketMs: number;
  keyHeader: string;
  alignMs: number | undefined;
  connections: number;
  maxRequests: number;
  maxTimeMs: number;
  timeoutMs: number;
  limit: number | undefined;
  windowMs: number | undefined;
  toStdout: boolean;
}

/** Every flag checked, and the scenario loaded, before anything is sent. */
function planAttack(options: AttackOptions, io: CommandIO): AttackPlan {
  const speed = Number(options.speed ?? ATTACK_DEFAULTS.speed);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 1000) throw usage('--speed', `expected a number above 0 and at most 1000, got ${JSON.stringify(options.speed)}`);
  if ((options.limit === undefined) !== (options.window === undefined)) throw usage(options.limit === undefined ? '--window' : '--limit', 'give --limit and --window together');
  const limit = options.limit === undefined ? undefined : wholeNumberFlag(options.limit, '--limit', 1);
  const windowMs = options.window === undefined ? undefined : parseDuration(options.window, '--window');
  const toStdout = checkOutputs(options, io.cwd);
  const workload = chooseWorkload(options, limit, windowMs, io);
  const fullMs = workload.minBuckets === undefined ? Infinity : workload.minBuckets * workload.bucketMs;
  return {
    workload,
    speed,
    durationMs: options.duration === undefined ? fullMs : Math.min(fullMs, parseDuration(options.duration, '--duration')),
    bucketMs: options.bucket === undefined ? Math.max(1, Math.round(workload.bucketMs / speed)) : parseDuration(options.bucket, '--bucket'),
    keyHeader: checkHeaderName(options.keyHeader ?? ATTACK_DEFAULTS.keyHeader),
    alignMs: options.align === undefined ? undefined : parseDuration(options.align, '--align'),
    connections: wholeNumberFlag(options.connections ?? ATTACK_DEFAULTS.connections, '--connections', 1, 1024),
    maxRequests: wholeNumberFlag(options.maxRequests ?? ATTACK_DEFAULTS.maxRequests, '--max-requests', 1, 10_000_000),
    maxTimeMs: parseDuration(options.maxTime ?? ATTACK_DEFAULTS.maxTime, '--max-time'),
    timeoutMs: parseDuration(options.timeout ?? ATTACK_DEFAULTS.timeout, '--timeout'),
    limit,
    windowMs,
    toStdout,
  };
}

function chooseWorkload(options: AttackOptions, limit: number | undefined, windowMs: number | undefined, io: CommandIO): Workload {
  if (options.trace === undefined) {
    if (options.scenario === undefined) throw usage('SCENARIO', 'expected a built-in scenario name or a scenario file (or --trace FILE)');
    return scenarioWorkload(resolveScenario(options.scenario, io.cwd));
  }
  if (options.scenario !== undefined) throw usage('--trace', `give either a scenario or --trace, not both (got ${options.scenario} and --trace ${options.trace})`);
  if (limit === undefined || windowMs === undefined) throw usage('--trace', 'a trace needs the policy to judge by: pass --limit N and --window D');
  return traceWorkload(resolve(io.cwd, options.trace), { limit, windowMs }, { label: options.trace, skipBadLines: options.skipBadLines ?? false });
}

function checkHeaderName(name: string): string {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw usage('--key-header', `expected an HTTP header name, got ${JSON.stringify(name)}`);
  return name;
}

/** The policy to judge by: the flags, else what the endpoint advertised, else the workload's at wall speed. */
function judgedPolicy(plan: AttackPlan, run: AttackRun): JudgedPolicy {
  if (plan.limit !== undefined && plan.windowMs !== undefined) return { limit: plan.limit, windowMs: plan.windowMs, source: 'flags' };
  const advertised = advertisedPolicy(run.shots);
  if (advertised) return { ...advertised, source: 'endpoint' };
  return { limit: plan.workload.policy.limit, windowMs: plan.workload.policy.windowMs / plan.speed, source: 'scenario' };
}

/** `ENDPOINT_UNAVAILABLE` when requests were sent and none got a response. */
function unreachableError(run: AttackRun, url: URL): RatelabError | undefined {
  if (run.shots.length === 0 || run.shots.some((shot) => shot.status !== undefined)) return undefined;
  const codes = [...new Set(run.shots.map((shot) => shot.error ?? 'unknown'))].join(', ');
  return new RatelabError('ENDPOINT_UNAVAILABLE', `no response from ${url.host}: ${codes} (${run.shots.length} of ${run.shots.length} requests failed)`, { field: 'URL' });
}

/** Messages about how far the run can be trusted, on stderr. */
function warn(run: AttackRun, analysis: AttackAnalysis, plan: AttackPlan, io: CommandIO): void {
  const say = (text: string) => io.stderr.write(`ratelab attack: ${text}\n`);
  if (run.stoppedBy === 'interrupted') say(`interrupted: the report covers the ${run.shots.length} requests sent so far`);
  if (run.stoppedBy === 'max-requests') say(`stopped at --max-requests ${plan.maxRequests}; ${run.unsent} events not sent`);
  if (run.stoppedBy === 'max-time') say(`stopped at --max-time; ${run.unsent} events not sent`);
  if (run.maxLagMs > analysis.policy.windowMs / 10) say(`requests left up to ${Math.round(run.maxLagMs)} ms late (over a tenth of the window): lower --speed or raise --connections`);
}

function usage(flag: string, why: string): RatelabError {
  return new RatelabError('INVALID_ARGUMENT', `${flag}: ${why}`, { field: flag });
}
