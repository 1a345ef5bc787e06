import { parseDuration } from '../../duration.js';
import { RatelabError } from '../../errors.js';
import { advertisedPolicy, analyzeAttack, type AttackAnalysis, type JudgedPolicy } from '../../http/attack-analysis.js';
import { runAttack, type AttackRun, type AttackStream } from '../../http/attack-runner.js';
import { checkTarget } from '../../http/attack-target.js';
import { resolveScenario } from '../../scenario/builtins.js';
import type { Scenario } from '../../scenario/scenario.js';
import { openScenario } from '../../traffic/stream.js';
import { EXIT } from '../exit-codes.js';
import { wholeNumberFlag } from '../flags.js';
import type { Command, CommandIO } from '../io.js';
import { renderAttack, type AttackFormat } from '../../report/attack-report.js';
import { writeOutput } from '../../report/write-output.js';

/** Options of `ratelab attack`. */
export interface AttackOptions {
  url: string;
  /** A built-in scenario's name or a scenario file. */
  scenario?: string;
  /** Scenario ms per wall ms (default 1): 10 replays ten times faster. */
  speed?: string | number;
  /** Replay only the first part of the scenario (scenario time). */
  duration?: string;
  /** The header carrying each event's key (default X-API-Key, as `ratelab serve` reads). */
  keyHeader?: string;
  /** Start on a multiple of this in epoch time (line up with the endpoint's fixed windows). */
  align?: string;
  /** The policy to judge the endpoint by (default: its RateLimit-Policy, else the scenario's). */
  limit?: string | number;
  window?: string;
  connections?: string | number;
  maxRequests?: string | number;
  maxTime?: string;
  timeout?: string;
  /** False (`--no-probe`): do not retry at Retry-After to check it. */
  probe?: boolean;
  allowRemote?: boolean;
  format?: string;
  output?: string;
  color?: boolean;
  signal?: AbortSignal;
}

export const ATTACK_DEFAULTS = { speed: 1, keyHeader: 'X-API-Key', connections: 16, maxRequests: 10_000, maxTime: '5m', timeout: '5s', format: 'table' } as const;

const FORMATS: readonly AttackFormat[] = ['table', 'json', 'csv'];

/**
 * `ratelab attack URL SCENARIO`: replays the scenario against a live endpoint in real time
 * and reports what it really enforced. Exit 3 when no request got any response.
 */
export const attackCommand: Command<AttackOptions> = async (options, io) => {
  const plan = planAttack(options, io);
  const url = await checkTarget(options.url, options.allowRemote === true);
  io.stderr.write(`ratelab attack: ${plan.scenario.name} against ${url.href} at ${plan.speed}x (about ${(plan.durationMs / plan.speed / 1000).toFixed(1)} s${plan.alignMs ? `, aligned to ${plan.alignMs} ms` : ''})\n`);
  const run = await runAttack({
    url,
    stream: openScenario(plan.scenario) as AttackStream,
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
  const policy = judgedPolicy(plan, run);
  const bucketMs = Math.max(1, Math.round(plan.scenario.bucketMs / plan.speed));
  const analysis = analyzeAttack(run, { policy, bucketMs, minBuckets: Math.ceil(plan.durationMs / plan.speed / bucketMs) });
  warnings(run, analysis, plan, io);
  await writeOutput(plan.output, renderAttack(plan.format, { url: url.href, scenario: plan.scenario.name, speed: plan.speed, run, analysis }, io, options.color), io);
  return EXIT.OK;
};

interface AttackPlan {
  scenario: Scenario;
  speed: number;
  durationMs: number;
  keyHeader: string;
  alignMs: number | undefined;
  connections: number;
  maxRequests: number;
  maxTimeMs: number;
  timeoutMs: number;
  limit: number | undefined;
  windowMs: number | undefined;
  format: AttackFormat;
  output: string;
}

/** Every flag checked, and the scenario loaded, before anything is sent. */
function planAttack(options: AttackOptions, io: CommandIO): AttackPlan {
  if (options.scenario === undefined) throw new RatelabError('INVALID_ARGUMENT', 'SCENARIO: expected a built-in scenario name or a scenario file', { field: 'SCENARIO' });
  const scenario = resolveScenario(options.scenario, io.cwd);
  const speed = Number(options.speed ?? ATTACK_DEFAULTS.speed);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 1000) {
    throw new RatelabError('INVALID_ARGUMENT', `--speed: expected a number above 0 and at most 1000, got ${JSON.stringify(options.speed)}`, { field: '--speed' });
  }
  const format = (options.format ?? ATTACK_DEFAULTS.format) as AttackFormat;
  if (!FORMATS.includes(format)) throw new RatelabError('INVALID_ARGUMENT', `--format: expected one of ${FORMATS.join(', ')}, got ${JSON.stringify(options.format)}`, { field: '--format' });
  if ((options.limit === undefined) !== (options.window === undefined)) {
    throw new RatelabError('INVALID_ARGUMENT', `${options.limit === undefined ? '--window' : '--limit'}: give --limit and --window together`, { field: '--limit' });
  }
  return {
    scenario,
    speed,
    durationMs: options.duration === undefined ? scenario.durationMs : Math.min(scenario.durationMs, parseDuration(options.duration, '--duration')),
    keyHeader: checkHeaderName(options.keyHeader ?? ATTACK_DEFAULTS.keyHeader),
    alignMs: options.align === undefined ? undefined : parseDuration(options.align, '--align'),
    connections: wholeNumberFlag(options.connections ?? ATTACK_DEFAULTS.connections, '--connections', 1, 1024),
    maxRequests: wholeNumberFlag(options.maxRequests ?? ATTACK_DEFAULTS.maxRequests, '--max-requests', 1, 10_000_000),
    maxTimeMs: parseDuration(options.maxTime ?? ATTACK_DEFAULTS.maxTime, '--max-time'),
    timeoutMs: parseDuration(options.timeout ?? ATTACK_DEFAULTS.timeout, '--timeout'),
    limit: options.limit === undefined ? undefined : wholeNumberFlag(options.limit, '--limit', 1),
    windowMs: options.window === undefined ? undefined : parseDuration(options.window, '--window'),
    format,
    output: options.output ?? '-',
  };
}

function checkHeaderName(name: string): string {
  if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new RatelabError('INVALID_ARGUMENT', `--key-header: expected an HTTP header name, got ${JSON.stringify(name)}`, { field: '--key-header' });
  return name;
}

/** The policy to judge by: the flags, else what the endpoint advertised, else the scenario's at wall speed. */
function judgedPolicy(plan: AttackPlan, run: AttackRun): JudgedPolicy {
  if (plan.limit !== undefined && plan.windowMs !== undefined) return { limit: plan.limit, windowMs: plan.windowMs, source: 'flags' };
  const advertised = advertisedPolicy(run.shots);
  if (advertised) return { ...advertised, source: 'endpoint' };
  return { limit: plan.scenario.policy.limit, windowMs: plan.scenario.policy.windowMs / plan.speed, source: 'scenario' };
}

/** `ENDPOINT_UNAVAILABLE` when requests were sent and none got a response. */
function unreachableError(run: AttackRun, url: URL): RatelabError | undefined {
  if (run.shots.length === 0 || run.shots.some((shot) => shot.status !== undefined)) return undefined;
  const codes = [...new Set(run.shots.map((shot) => shot.error ?? 'unknown'))].join(', ');
  return new RatelabError('ENDPOINT_UNAVAILABLE', `no response from ${url.host}: ${codes} (${run.shots.length} of ${run.shots.length} requests failed)`, { field: 'URL' });
}

function warnings(run: AttackRun, analysis: AttackAnalysis, plan: AttackPlan, io: CommandIO): void {
  const say = (text: string) => io.stderr.write(`ratelab attack: ${text}\n`);
  if (run.stoppedBy === 'interrupted') say(`interrupted: the report covers the ${run.shots.length} requests sent so far`);
  if (run.stoppedBy === 'max-requests') say(`stopped at --max-requests ${plan.maxRequests}; ${run.unsent} scenario events not sent`);
  if (run.stoppedBy === 'max-time') say(`stopped at --max-time; ${run.unsent} scenario events not sent`);
  if (run.maxLagMs > analysis.policy.windowMs / 10) say(`requests left up to ${Math.round(run.maxLagMs)} ms late (over a tenth of the window): lower --speed or raise --connections`);
  if (analysis.responses.errors > 0) say(`${analysis.responses.errors} requests got no response (${Object.entries(analysis.responses.errorCodes).map(([code, n]) => `${code} x${n}`).join(', ')})`);
}
