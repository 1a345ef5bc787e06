import { parseList, type Member } from '../core/structured-field.js';
import { percentiles } from '../metrics/percentile.js';
import { MetricsRecorder, type ReplayMetrics } from '../metrics/recorder.js';
import type { AttackRun } from './runner.js';
import { ABORTED, isAdmitted, retryAfterMsOf, type Shot } from './shot.js';
import type { JudgedPolicy } from './endpoint-policy.js';

export type { JudgedPolicy } from './endpoint-policy.js';

/** How the endpoint answered the workload's own requests (Retry-After probes are apart). */
export interface ResponseCounts {
  /** Requests sent. */
  sent: number;
  /** 2xx: admitted. */
  admitted: number;
  /** 429: limited. */
  limited: number;
  /** Any other status (not counted as a decision). */
  other: number;
  /** No complete response, the endpoint's doing: connection errors and timeouts (`--timeout`), by code. */
  errors: number;
  errorCodes: Record<string, number>;
  /** Cut off in flight by the run's own stop (`--max-time`, a signal): not the endpoint's errors. */
  aborted: number;
}

/**
 * The Retry-After probes: retries sent at a 429's Retry-After to check the promise, apart
 * from the workload's requests (see {@link analyzeAttack}).
 */
export interface RetryAfterCheck {
  /** Probes sent. */
  sent: number;
  /** Admitted: the promise held. */
  honest: number;
  /** Limited although no request of that key was admitted in between: the promise was broken. */
  dishonest: number;
  /** Limited, but other requests of the key were admitted in between: no verdict. */
  contended: number;
  /** No decision (error or other status). */
  undecided: number;
}

/** Percentiles of the endpoint's response times (nearest rank, see `percentiles`), wall ms. */
export interface ResponseTimes {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** What `ratelab attack` measured. `metrics` uses the lab's definitions, in wall-clock ms. */
export interface AttackAnalysis {
  policy: JudgedPolicy;
  /** Over the workload's decided requests (2xx and 429); probes are not in it. */
  metrics: ReplayMetrics;
  /** The workload's requests: `sent` is its events sent, probes not included. */
  responses: ResponseCounts;
  /** Of the workload's requests' responses. */
  latencyMs: ResponseTimes | null;
  probes: RetryAfterCheck;
  /**
   * Each advertised limit's worst window, when the endpoint holds a key to several at once
   * (`policy.limits`); empty otherwise. The same metric as `metrics.worstWindowRatio`, once
   * per limit; `metrics` is then judged by all of them at once, its worst window the worst of these.
   */
  limits: LimitWorstWindow[];
  /** Responses (probes included) whose rate-limit fields contradict themselves or the status; a few examples. */
  headerProblems: { count: number; examples: string[] };
}

/** One limit's worst window over the workload's decided requests: most admitted for one key in any `(t - windowMs, t]`, over `limit`. */
export interface LimitWorstWindow {
  name: string;
  limit: number;
  /** Wall ms. */
  windowMs: number;
  worstWindowRatio: number;
  worstWindow: ReplayMetrics['worstWindow'];
}

/** Options of {@link analyzeAttack}. */
export interface AnalysisOptions {
  policy: JudgedPolicy;
  bucketMs: number;
  minBuckets?: number;
}

/**
 * Judges a run from outside: each decided request of the workload (2xx admitted, 429
 * denied) is recorded at its sending time, in order, into the lab's MetricsRecorder, so
 * `offered` is the workload's requests sent, and admitted per window, the worst-window
 * ratio and the accuracy against the exact oracle mean what they mean in `compare`.
 * Retry-After probes are extra requests the workload does not hold, so they are counted
 * apart: a probe is honest when admitted; when limited it is dishonest only if no request
 * of that key was admitted between the 429 and the probe.
 */
export function analyzeAttack(run: AttackRun, options: AnalysisOptions): AttackAnalysis {
  const own = run.shots.filter((shot) => shot.probeOf === undefined);
  const metrics = replayMetrics(own, options);
  const limits = options.policy.limits === undefined ? [] : metrics.limits.map(limitWorstWindow);
  const problems: string[] = [];
  for (const [i, shot] of run.shots.entries()) {
    const problem = isDecided(shot) ? headerProblem(shot) : undefined;
    if (problem) problems.push(`request ${i + 1} (${shot.status}): ${problem}`);
  }
  return {
    policy: options.policy,
    metrics,
    limits,
    responses: countResponses(own),
    latencyMs: responseTimes(own),
    probes: checkRetryAfter(run.shots),
    headerProblems: { count: problems.length, examples: problems.slice(0, 5) },
  };
}

/**
 * The lab's metrics of the decided requests among `shots`, each at its sending time, judged
 * by the exact oracle of the policy: its `limit` per `windowMs`, or, when it lists several
 * limits, all of them at once (a request is right to be admitted only if every limit admits
 * it), the worst window then the worst of theirs.
 */
function replayMetrics(shots: readonly Shot[], options: AnalysisOptions): ReplayMetrics {
  const { policy, bucketMs, minBuckets } = options;
  const recorder = new MetricsRecorder({
    limit: policy.limit,
    windowMs: policy.windowMs,
    ...(policy.limits === undefined ? {} : { limits: policy.limits }),
    bucketMs,
    originMs: 0,
    minBuckets,
  });
  for (const shot of shots) {
    if (isDecided(shot)) recorder.record(Math.max(0, Math.round(shot.sentMs)), shot.key, 1, isAdmitted(shot));
  }
  return recorder.result();
}

/** A limit's figures as the attack reports them. */
function limitWorstWindow(limit: ReplayMetrics['limits'][number]): LimitWorstWindow {
  const { name, limit: quota, windowMs, ratio, worstWindow } = limit;
  return { name, limit: quota, windowMs, worstWindowRatio: ratio, worstWindow };
}

/** Whether the endpoint decided the request: admitted (2xx) or limited (429). */
export function isDecided(shot: Shot): boolean {
  return isAdmitted(shot) || shot.status === 429;
}

function countResponses(shots: readonly Shot[]): ResponseCounts {
  const counts: ResponseCounts = {
    sent: shots.length,
    admitted: 0,
    limited: 0,
    other: 0,
    errors: 0,
    errorCodes: {},
    aborted: 0,
  };
  for (const shot of shots) {
    if (shot.error === ABORTED) counts.aborted += 1;
    else if (shot.status === undefined) {
      counts.errors += 1;
      const code = shot.error ?? 'unknown';
      counts.errorCodes[code] = (counts.errorCodes[code] ?? 0) + 1;
    } else if (isAdmitted(shot)) counts.admitted += 1;
    else if (shot.status === 429) counts.limited += 1;
    else counts.other += 1;
  }
  return counts;
}

function checkRetryAfter(shots: readonly Shot[]): RetryAfterCheck {
  const check: RetryAfterCheck = { sent: 0, honest: 0, dishonest: 0, contended: 0, undecided: 0 };
  for (const [i, probe] of shots.entries()) {
    if (probe.probeOf === undefined) continue;
    check.sent += 1;
    if (isAdmitted(probe)) check.honest += 1;
    else if (probe.status !== 429) check.undecided += 1;
    else if (admittedBetween(shots, probe.key, probe.probeOf, i)) check.contended += 1;
    else check.dishonest += 1;
  }
  return check;
}

function admittedBetween(shots: readonly Shot[], key: string, from: number, to: number): boolean {
  for (let i = from + 1; i < to; i++) {
    const shot = shots[i] as Shot;
    if (shot.key === key && isAdmitted(shot)) return true;
  }
  return false;
}

function responseTimes(shots: readonly Shot[]): ResponseTimes | null {
  const times = shots.filter((shot) => shot.status !== undefined).map((shot) => shot.latencyMs);
  if (times.length === 0) return null;
  const [p50, p90, p99, max] = percentiles(times, [0.5, 0.9, 0.99, 1]) as [number, number, number, number];
  return { p50, p90, p99, max };
}

/**
 * What is wrong with a decided response's rate-limit fields, if anything: a 429 needs a
 * whole-second Retry-After >= 1 (RFC 9110 10.2.3) no earlier than the RateLimit `t` of a
 * policy it ran out of; a 2xx has none; Remaining never exceeds Limit; X-RateLimit-Remaining
 * equals RateLimit's `r` (of several policies, the least: the binding limit's).
 */
export function headerProblem(shot: Shot): string | undefined {
  const { retryAfter, limit, remaining, rateLimit } = shot.headers;
  const wait = retryAfterMsOf(shot);
  if (shot.status === 429 && retryAfter !== undefined && (!Number.isFinite(wait) || wait < 1000))
    return `Retry-After ${JSON.stringify(retryAfter)} is not a whole number of seconds >= 1`;
  if (isAdmitted(shot) && retryAfter !== undefined) return 'Retry-After on an admitted request';
  if (limit !== undefined && remaining !== undefined && Number(remaining) > Number(limit))
    return `X-RateLimit-Remaining ${remaining} exceeds X-RateLimit-Limit ${limit}`;
  const items = serviceLimits(rateLimit);
  const least = items.reduce(
    (low, item) => (item.r !== undefined && (low === undefined || item.r < low) ? item.r : low),
    undefined as number | undefined,
  );
  if (least !== undefined && remaining !== undefined && String(least) !== remaining)
    return `RateLimit r=${least} but X-RateLimit-Remaining ${remaining}`;
  // One policy: its t is the denial's. Of several, those run out (r=0) are the ones denying.
  const denying = items.length === 1 ? items : items.filter((item) => item.r === 0);
  for (const { t } of denying) {
    if (t !== undefined && shot.status === 429 && Number.isFinite(wait) && wait < t * 1000)
      return `Retry-After ${retryAfter} is earlier than RateLimit t=${t}`;
  }
  return undefined;
}

/** The `r` and `t` of each item of a `RateLimit` field (absent or unreadable ones undefined). */
function serviceLimits(field: string | undefined): { r: number | undefined; t: number | undefined }[] {
  const list = field === undefined ? undefined : parseList(field);
  if (!list?.ok) return [];
  const number = (member: Member, key: string) => {
    const value = member.params.get(key);
    return value?.kind === 'integer' ? value.value : undefined;
  };
  return list.value.map((member) => ({ r: number(member, 'r'), t: number(member, 't') }));
}
