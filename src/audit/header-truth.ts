import type { Family, HeaderVerdict } from './audit-report.js';
import {
  conventionGroup,
  readAnnouncement,
  type Announcement,
  type AnnouncedPolicy,
  type Figure,
} from '../core/header-fields.js';

/**
 * Whether an endpoint's rate-limit fields tell the truth, judged from what the probes saw.
 * Pure: the probes collect a {@link HeaderEvidence}, {@link retryCheckPlan} tells them when
 * to send the retry checks, and {@link judgeHeaders} gives one verdict per field.
 */

/** One response of the sequential run from a fresh identity. */
export interface SequenceResponse {
  /** Sent this long after the audit's start, ms. */
  sentMs: number;
  /** Sent at this epoch time, ms (dates and epoch times in the fields are read against it). */
  epochMs: number;
  /** Admitted (2xx, or delayed and then served) or denied. */
  admitted: boolean;
  /** The rate-limit fields by lower-case name (`ProbeShot.headers`). */
  headers: Record<string, string>;
}

/** What the probes measured, to hold the announcements against. */
export interface MeasuredPolicy {
  family: Family;
  /** Requests per window (for a bucket: `ratePerSec` over `windowMs`); null when not measured. */
  limit: number | null;
  /** The window, ms; null when not measured. */
  windowMs: number | null;
  /** A bucket's capacity, requests. */
  burst?: number;
  /** A bucket's rate, requests per second. */
  ratePerSec?: number;
  /**
   * From the sequence's denial to the next admission of the same identity, ms (the first
   * admitted poll of the recovery probe). Absent when not measured.
   */
  recoveryMs?: number;
  /** The gap between the recovery probe's polls, ms: the true recovery lies within `recoveryMs` minus this. Default 0. */
  recoveryResolutionMs?: number;
  /**
   * From the sequence's denial until the whole quota was back, ms. Absent: derived from the
   * family (a bucket: `burst / ratePerSec`; a fixed window: `recoveryMs`; a sliding log: the
   * window; a sliding counter: two windows).
   */
  fullRecoveryMs?: number;
}

/**
 * One retry check the probes ran (see {@link retryCheckPlan}): a request sent `sentAfterMs`
 * after its identity's denial, which had announced a wait of `announcedMs`.
 */
export interface RetryCheck {
  /** The fields that announced this wait (`Retry-After`, and any reset field saying the same). */
  fields: string[];
  /** The wait the denial announced, ms. */
  announcedMs: number;
  /** When the request was sent, ms after that denial was sent. */
  sentAfterMs: number;
  admitted: boolean;
}

/** Everything {@link judgeHeaders} needs; plain data. */
export interface HeaderEvidence {
  /**
   * A sequential run from a fresh identity, in order, through its first denial (all of it,
   * when nothing was denied).
   */
  sequence: SequenceResponse[];
  /** The retry checks run, from the sequence's identity (`at`) and from identities in the same state (`early`). */
  retryChecks: RetryCheck[];
  measured: MeasuredPolicy;
}

/** When to send the retry checks for one denial, on the audit's clock (ms from its start). */
export interface RetryCheckPlan {
  /** The fields that announced the wait checked. */
  fields: string[];
  /** The wait announced, ms (never negative). */
  announcedMs: number;
  /** Send the `at` check then, from the denied identity: the announced time, a little after. */
  atSentMs: number;
  /**
   * Send the `early` check then, from an identity denied at the same point of its run: more
   * than the 1 s of rounding before the announced time. Absent when the wait is under 2 s:
   * no moment is clearly earlier than a rounded-up wait.
   */
  earlySentMs?: number;
}

const MS_PER_SECOND = 1000;
/** RFC 9110 delay-seconds are whole: a wait rounded up is late by less than this. */
const ROUNDING_MS = 1000;
/** The `at` check goes this long after the announced time (the limiter's clock reads the request a little later). */
const AT_MARGIN_MS = 25;
/** Waits at least this long get an `early` check. */
const EARLY_MIN_MS = 2000;
/** The `early` check goes this much more than the rounding before the announced time: at least ... */
const EARLY_MARGIN_MS = 250;
/** ... or this fraction of the wait. */
const EARLY_MARGIN_SHARE = 0.1;
/** A timing judged from the measured recovery allows this much: at least ... */
const TIMING_TOLERANCE_MS = 100;
/** ... or this fraction of the recovery. */
const TIMING_TOLERANCE_SHARE = 0.05;
/** An announced limit or quota within 5% of the measured one is truthful. */
const LIMIT_TOLERANCE = 0.05;
/** An announced window or rate within 10% of the measured one is truthful. */
const WINDOW_TOLERANCE = 0.1;
/** A wait this many times the recovery (about 1000x) was written in ms where seconds were due. */
const MS_FOR_S_RATIO: readonly [number, number] = [500, 2000];
/** What a row names a convention by when none of its fields came. */
const MISSING_X_RATELIMIT = 'X-RateLimit-*';
const MISSING_IETF = 'RateLimit (IETF)';

/** A verdict other than missing, before a malformed value is folded in. */
interface Judgement {
  verdict: 'truthful' | 'wrong';
  detail: string;
}

/**
 * When the probes should send the checks of a denial's announced wait: the `Retry-After`,
 * or when there is none the reset (`RateLimit t`, `X-RateLimit-Reset`, ...).
 * @param announcement what the denial announced ({@link readAnnouncement})
 * @param deniedSentMs when the denied request was sent, ms on the audit's clock
 * @returns the plan, or undefined when the denial announced no wait
 */
export function retryCheckPlan(announcement: Announcement, deniedSentMs: number): RetryCheckPlan | undefined {
  const waitMs = announcement.retryAfterMs ?? announcement.resetMs;
  if (waitMs === undefined) return undefined;
  const fields = announcement.readings
    .filter((r) => isWait(r.figure) && Math.abs(r.value - waitMs) < 1)
    .map((r) => r.field);
  const announcedMs = Math.max(0, waitMs);
  const plan: RetryCheckPlan = { fields, announcedMs, atSentMs: deniedSentMs + announcedMs + AT_MARGIN_MS };
  if (announcedMs >= EARLY_MIN_MS) {
    const margin = Math.max(EARLY_MARGIN_MS, EARLY_MARGIN_SHARE * announcedMs);
    plan.earlySentMs = deniedSentMs + announcedMs - ROUNDING_MS - margin;
  }
  return plan;
}

/**
 * One verdict per rate-limit field the endpoint sent, then one `missing` row per convention
 * it did not use at all (`Retry-After` on denials, `X-RateLimit-*`, the IETF fields). A field
 * the evidence cannot judge (a `Remaining` with no denial to count to, a wait with neither a
 * check nor a measured recovery) gets no row.
 * @param evidence what the probes saw
 * @returns the verdicts, `Retry-After` first, then `X-RateLimit-*`, then the IETF fields, then the missing
 */
export function judgeHeaders(evidence: HeaderEvidence): HeaderVerdict[] {
  const run = new Run(evidence);
  const verdicts: HeaderVerdict[] = [];
  for (const field of run.fieldsSent()) {
    const judgement = run.judge(field);
    const malformed = run.malformed(field);
    if (malformed !== undefined) {
      const detail = judgement ? `${malformed}; ${judgement.detail}` : malformed;
      verdicts.push({ name: field, verdict: 'wrong', detail });
    } else if (judgement) {
      verdicts.push({ name: field, ...judgement });
    }
  }
  return [...verdicts, ...run.missing()];
}

function isWait(figure: Figure): boolean {
  return figure === 'retryAfter' || figure === 'reset';
}

/** The sequence read once, with what each judgement needs. */
class Run {
  private readonly reads: Announcement[];
  /** Index of the first denial in the sequence, -1 when none. */
  private readonly denial: number;

  constructor(private readonly evidence: HeaderEvidence) {
    this.reads = evidence.sequence.map((r) => readAnnouncement(r.headers, r.epochMs));
    this.denial = evidence.sequence.findIndex((r) => !r.admitted);
  }

  /** Every field any response carried, in report order. */
  fieldsSent(): string[] {
    const fields = new Set<string>();
    for (const read of this.reads) {
      for (const reading of read.readings) fields.add(reading.field);
      for (const malformed of read.malformed) fields.add(malformed.field);
      if (read.policies.length > 0) fields.add('RateLimit-Policy');
    }
    return [...fields].sort((a, b) => groupRank(a) - groupRank(b));
  }

  judge(field: string): Judgement | undefined {
    if (field === 'RateLimit-Policy') return this.judgePolicy();
    const figure = this.figureOf(field);
    if (figure === 'remaining') return this.judgeRemaining(field);
    if (figure === 'limit') return this.judgeLimit(field);
    if (figure !== undefined) return this.judgeWait(field, figure);
    return undefined;
  }

  /** What was malformed in `field` (its first malformed value), or undefined. */
  malformed(field: string): string | undefined {
    for (const read of this.reads) {
      const found = read.malformed.find((m) => m.field === field);
      if (found) return `malformed: ${found.why} (sent "${found.value}")`;
    }
    return undefined;
  }

  /** One row per convention that no response used, and `Retry-After` when denials lack it. */
  missing(): HeaderVerdict[] {
    const { sequence } = this.evidence;
    if (sequence.length === 0) return [];
    const groups = new Set(sequence.flatMap((r) => Object.keys(r.headers).map(conventionGroup)));
    const rows: HeaderVerdict[] = [];
    const denied = sequence[this.denial];
    if (denied && denied.headers['retry-after'] === undefined) {
      rows.push({ name: 'Retry-After', verdict: 'missing', detail: 'denials carry no Retry-After' });
    }
    if (!groups.has('x-ratelimit')) {
      const detail = 'no response carried X-RateLimit-Limit, -Remaining or -Reset';
      rows.push({ name: MISSING_X_RATELIMIT, verdict: 'missing', detail });
    }
    if (!groups.has('ietf')) {
      const detail = 'no response carried RateLimit, RateLimit-Policy or the draft-06 RateLimit-* fields';
      rows.push({ name: MISSING_IETF, verdict: 'missing', detail });
    }
    return rows;
  }

  private figureOf(field: string): Figure | undefined {
    for (const read of this.reads) {
      const reading = read.readings.find((r) => r.field === field);
      if (reading) return reading.figure;
    }
    return undefined;
  }

  /** The value `field` announced on response `index`, if it did. */
  private valueAt(index: number, field: string): number | undefined {
    return this.reads[index]?.readings.find((r) => r.field === field)?.value;
  }

  /** Requests the limiter may have restored per ms: the bucket's rate, or the window's average. */
  private refillPerMs(): number {
    const { ratePerSec, limit, windowMs } = this.evidence.measured;
    if (ratePerSec !== undefined) return ratePerSec / MS_PER_SECOND;
    if (limit !== null && windowMs !== null && windowMs > 0) return limit / windowMs;
    return 0;
  }

  /** What the limiter may have restored between response `index` and the denial: the refill, plus one. */
  private slackAfter(index: number): number {
    const { sequence } = this.evidence;
    const elapsed = (sequence[this.denial]?.sentMs ?? 0) - (sequence[index]?.sentMs ?? 0);
    return this.refillPerMs() * Math.max(0, elapsed) + 1;
  }

  /** `Remaining n` is followed by n to n + slack admissions before the denial; a denial announces 0. */
  private judgeRemaining(field: string): Judgement | undefined {
    if (this.denial < 0) return undefined;
    const onDenial = this.valueAt(this.denial, field);
    if (onDenial !== undefined && onDenial > 0) {
      return { verdict: 'wrong', detail: `a denial announced ${onDenial} remaining` };
    }
    const said = this.remainingSaid(field);
    const disagreeing = said.filter((s) => s.admitted < s.said || s.admitted > s.said + this.slackAfter(s.index));
    const [first] = disagreeing;
    if (first) {
      return {
        verdict: 'wrong',
        detail:
          `off by ${signed(first.admitted - first.said)}: response ${first.index + 1} announced ${first.said} remaining, ` +
          `then ${first.admitted} were admitted before the denial (${disagreeing.length} of ${said.length} responses disagree)`,
      };
    }
    if (said.length > 0) {
      const detail = `each of ${said.length} responses was followed by as many admissions (within the refill) before the denial`;
      return { verdict: 'truthful', detail };
    }
    return onDenial === undefined ? undefined : { verdict: 'truthful', detail: 'a denial announced 0 remaining' };
  }

  /**
   * What each admitted response said of `field` and how many were admitted after it before the
   * denial, from the last visible rise of the value on (a new window, a refill): what came
   * before held for a quota since replaced.
   */
  private remainingSaid(field: string): { index: number; said: number; admitted: number }[] {
    let from = 0;
    for (let i = 1; i < this.denial; i++) {
      const [previous, current] = [this.valueAt(i - 1, field), this.valueAt(i, field)];
      if (previous !== undefined && current !== undefined && current > previous) from = i;
    }
    const said: { index: number; said: number; admitted: number }[] = [];
    for (let index = from; index < this.denial; index++) {
      const value = this.valueAt(index, field);
      if (value !== undefined) said.push({ index, said: value, admitted: this.denial - index - 1 });
    }
    return said;
  }

  /**
   * The limit announced to a fresh identity against what it was admitted and the measured
   * policy. A bucket's capacity differs from its rate's quota per window: either is truthful,
   * and the detail says which it is.
   */
  private judgeLimit(field: string): Judgement | undefined {
    const index = this.reads.findIndex((read) => read.readings.some((r) => r.field === field));
    const said = this.valueAt(index, field);
    if (said === undefined) return undefined;
    const { measured } = this.evidence;
    const admitted = this.denial > 0 && index === 0 ? this.denial : undefined;
    if (
      admitted !== undefined &&
      (within(said, admitted, LIMIT_TOLERANCE) || matchesWithRefill(said, admitted, this.slackAfter(0)))
    ) {
      return {
        verdict: 'truthful',
        detail: `${said}: ${admitted} were admitted from a fresh identity${bucketNote(said, measured)}`,
      };
    }
    if (measured.burst !== undefined && within(said, measured.burst, LIMIT_TOLERANCE)) {
      return { verdict: 'truthful', detail: `${said}: the measured burst ${measured.burst}${rateNote(measured)}` };
    }
    if (measured.limit !== null && within(said, measured.limit, LIMIT_TOLERANCE)) {
      const burst = measured.burst === undefined ? '' : `; the burst is ${measured.burst}`;
      return { verdict: 'truthful', detail: `${said}: the measured limit ${describeMeasured(measured)}${burst}` };
    }
    if (admitted === undefined && measured.limit === null && measured.burst === undefined) return undefined;
    const counted = admitted === undefined ? '' : `${admitted} were admitted from a fresh identity; `;
    const burst = measured.burst === undefined ? '' : `, burst ${measured.burst}`;
    const off = admitted === undefined ? '' : `off by ${signed(said - admitted)}: `;
    return {
      verdict: 'wrong',
      detail: `${off}announced ${said}; ${counted}measured ${describeMeasured(measured)}${burst}`,
    };
  }

  /** A wait (`Retry-After`, a reset) against the checks at and before it, else the measured recovery. */
  private judgeWait(field: string, figure: Figure): Judgement | undefined {
    const checks = this.evidence.retryChecks.filter((c) => c.fields.includes(field));
    const announcedMs = this.denial >= 0 ? this.valueAt(this.denial, field) : checks[0]?.announcedMs;
    if (announcedMs === undefined) return undefined;
    const wait = new WaitJudge(field, figure, announcedMs, this.evidence.measured);
    const short = wait.shortSide(checks);
    const long = wait.longSide(checks);
    if (short?.verdict === 'wrong') return short;
    if (long?.verdict === 'wrong') return long;
    const details = [short, long].filter((j) => j !== undefined).map((j) => j.detail);
    return details.length === 0 ? undefined : { verdict: 'truthful', detail: details.join('; ') };
  }

  /** The policies announced to the fresh identity against the measured policy. */
  private judgePolicy(): Judgement | undefined {
    const policies = this.reads.find((read) => read.policies.length > 0)?.policies ?? [];
    const { measured } = this.evidence;
    const judged = policies.map((policy) => ({ policy, differences: policyDifferences(policy, measured) }));
    if (judged.length === 0 || judged.every((j) => j.differences === undefined)) return undefined;
    const match = judged.find((j) => j.differences?.length === 0);
    if (match) {
      const others = policies.filter((p) => p !== match.policy).map(describePolicy);
      const rest = others.length === 0 ? '' : `; ${others.join(', ')} not reached by the audit`;
      return {
        verdict: 'truthful',
        detail: `${describePolicy(match.policy)} matches the measured ${describeMeasured(measured)}${rest}`,
      };
    }
    const [closest] = judged
      .filter((j) => j.differences !== undefined)
      .sort((a, b) => (a.differences?.length ?? 0) - (b.differences?.length ?? 0));
    if (!closest) return undefined;
    return {
      verdict: 'wrong',
      detail: `announced ${describePolicy(closest.policy)}: ${(closest.differences ?? []).join(', ')}`,
    };
  }
}

/** Judges one announced wait: not too short (a request at it is admitted), not too long (none clearly before it is). */
class WaitJudge {
  constructor(
    private readonly field: string,
    private readonly figure: Figure,
    private readonly announcedMs: number,
    private readonly measured: MeasuredPolicy,
  ) {}

  /** A request at the announced time must be admitted. */
  shortSide(checks: RetryCheck[]): Judgement | undefined {
    const at = checks.filter((c) => c.sentAfterMs >= c.announcedMs);
    const denied = at.find((c) => !c.admitted);
    if (denied) {
      return {
        verdict: 'wrong',
        detail: `too short: a request at the announced ${seconds(denied.announcedMs)} was denied`,
      };
    }
    if (at.length > 0)
      return { verdict: 'truthful', detail: `a request at the announced ${seconds(at[0]!.announcedMs)} was admitted` };
    const { recoveryMs } = this.measured;
    if (recoveryMs === undefined) return undefined;
    const earliest = recoveryMs - (this.measured.recoveryResolutionMs ?? 0) - tolerance(recoveryMs);
    if (this.announcedMs < earliest) {
      return {
        verdict: 'wrong',
        detail: `too short: announced ${seconds(this.announcedMs)}, but the next admission came ${seconds(recoveryMs)} after the denial`,
      };
    }
    return {
      verdict: 'truthful',
      detail: `announced ${seconds(this.announcedMs)}; the next admission came ${seconds(recoveryMs)} after the denial`,
    };
  }

  /**
   * No request clearly before the announced time may be admitted. A reset announces when the
   * whole quota is back: an earlier admission contradicts it only where the quota returns all
   * at once (a fixed window); elsewhere it is held against the measured full recovery.
   */
  longSide(checks: RetryCheck[]): Judgement | undefined {
    const earlyCounts = this.figure === 'retryAfter' || this.measured.family === 'fixed-window';
    const early = earlyCounts ? checks.filter((c) => c.sentAfterMs < c.announcedMs - ROUNDING_MS) : [];
    const admitted = early.find((c) => c.admitted);
    if (admitted) {
      const sooner = admitted.announcedMs - admitted.sentAfterMs;
      return { verdict: 'wrong', detail: `too long: admitted ${seconds(sooner)} earlier${this.diagnosis() ?? ''}` };
    }
    if (early.length > 0) {
      const sooner = early[0]!.announcedMs - early[0]!.sentAfterMs;
      return { verdict: 'truthful', detail: `one sent ${seconds(sooner)} before it was denied` };
    }
    return this.longSideFromRecovery();
  }

  private longSideFromRecovery(): Judgement | undefined {
    const { recoveryMs } = this.measured;
    const backMs = this.figure === 'retryAfter' ? recoveryMs : fullRecoveryMs(this.measured);
    if (recoveryMs === undefined || backMs === undefined) return undefined;
    if (this.announcedMs < backMs + ROUNDING_MS + tolerance(recoveryMs)) return undefined;
    const what = this.figure === 'retryAfter' ? 'the next admission' : 'the whole quota';
    return {
      verdict: 'wrong',
      detail: `too long: announced ${seconds(this.announcedMs)}, ${what} came back ${seconds(backMs)} after the denial${this.diagnosis() ?? ''}`,
    };
  }

  /** Why a wait is too long, when it is a known mistake: ms sent as seconds, or the whole window sent as the time left. */
  private diagnosis(): string | undefined {
    const { recoveryMs, windowMs } = this.measured;
    if (recoveryMs === undefined || recoveryMs <= 0) return undefined;
    const ratio = this.announcedMs / recoveryMs;
    if (ratio >= MS_FOR_S_RATIO[0] && ratio <= MS_FOR_S_RATIO[1]) {
      const sent = this.announcedMs / MS_PER_SECOND;
      return ` (in ms, not s: ${this.field} ${sent} where the wait was ${seconds(recoveryMs)})`;
    }
    const nearWindow = windowMs !== null && Math.abs(this.announcedMs - windowMs) <= ROUNDING_MS + tolerance(windowMs);
    if (nearWindow && windowMs !== null && recoveryMs < windowMs) {
      return ` (the whole window, ${seconds(windowMs)}, not the time left, ${seconds(recoveryMs)})`;
    }
    return undefined;
  }
}

/** Until the whole quota is back after a run that drained it, ms, when it can be told. */
function fullRecoveryMs(measured: MeasuredPolicy): number | undefined {
  if (measured.fullRecoveryMs !== undefined) return measured.fullRecoveryMs;
  const { family, burst, ratePerSec, windowMs, recoveryMs } = measured;
  if (family === 'token-bucket' || family === 'leaky-bucket-queue') {
    return burst !== undefined && ratePerSec ? (burst / ratePerSec) * MS_PER_SECOND : undefined;
  }
  if (family === 'fixed-window') return recoveryMs;
  if (windowMs === null) return recoveryMs;
  if (family === 'sliding-log') return windowMs;
  if (family === 'sliding-counter') return 2 * windowMs;
  return Math.max(recoveryMs ?? 0, windowMs);
}

/**
 * What differs between an announced policy and the measured one: [] when it matches,
 * undefined when nothing was measured to hold it against.
 */
function policyDifferences(policy: AnnouncedPolicy, measured: MeasuredPolicy): string[] | undefined {
  const bucket = measured.family === 'token-bucket' || measured.family === 'leaky-bucket-queue';
  if (bucket && measured.ratePerSec !== undefined && policy.windowMs !== undefined) {
    const differences: string[] = [];
    const rate = policy.quota / (policy.windowMs / MS_PER_SECOND);
    if (!within(rate, measured.ratePerSec, WINDOW_TOLERANCE)) {
      differences.push(`rate ${round(rate)}/s (measured ${round(measured.ratePerSec)}/s)`);
    }
    if (
      policy.burst !== undefined &&
      measured.burst !== undefined &&
      !within(policy.burst, measured.burst, LIMIT_TOLERANCE)
    ) {
      differences.push(`burst ${policy.burst} (measured ${measured.burst})`);
    }
    return differences;
  }
  if (measured.limit === null) return undefined;
  const differences: string[] = [];
  if (!within(policy.quota, measured.limit, LIMIT_TOLERANCE))
    differences.push(`quota ${policy.quota} (measured ${measured.limit})`);
  if (
    policy.windowMs !== undefined &&
    measured.windowMs !== null &&
    !within(policy.windowMs, measured.windowMs, WINDOW_TOLERANCE)
  ) {
    differences.push(`window ${seconds(policy.windowMs)} (measured ${seconds(measured.windowMs)})`);
  }
  return differences;
}

/** Report order: `Retry-After`, then `X-RateLimit-*`, then the IETF fields. */
function groupRank(field: string): number {
  const group = conventionGroup((field.split(' ')[0] ?? field).toLowerCase());
  return group === 'retry-after' ? 0 : group === 'x-ratelimit' ? 1 : 2;
}

/** Whether `value` is within `share` of `reference` (exact when the reference is 0). */
function within(value: number, reference: number, share: number): boolean {
  return Math.abs(value - reference) <= share * Math.abs(reference);
}

/** The count admitted from a fresh identity includes what the limiter restored meanwhile. */
function matchesWithRefill(said: number, admitted: number, slack: number): boolean {
  return said <= admitted && said >= admitted - slack;
}

function bucketNote(said: number, measured: MeasuredPolicy): string {
  if (measured.burst === undefined || measured.limit === null || measured.burst === measured.limit) return '';
  return within(said, measured.burst, LIMIT_TOLERANCE) ? ` (the burst${rateNote(measured)})` : '';
}

function rateNote(measured: MeasuredPolicy): string {
  return measured.ratePerSec === undefined ? '' : `; the sustained rate is ${round(measured.ratePerSec)}/s`;
}

function describeMeasured(measured: MeasuredPolicy): string {
  if (
    measured.ratePerSec !== undefined &&
    (measured.family === 'token-bucket' || measured.family === 'leaky-bucket-queue')
  ) {
    return `${round(measured.ratePerSec)}/s`;
  }
  if (measured.limit === null) return 'no limit';
  return measured.windowMs === null ? `${measured.limit}` : `${measured.limit} per ${seconds(measured.windowMs)}`;
}

function describePolicy(policy: AnnouncedPolicy): string {
  const name = policy.name === undefined ? '' : `"${policy.name}" `;
  const window = policy.windowMs === undefined ? '' : ` per ${seconds(policy.windowMs)}`;
  const burst = policy.burst === undefined ? '' : ` burst ${policy.burst}`;
  return `${name}${policy.quota}${window}${burst}`;
}

function tolerance(ms: number): number {
  return Math.max(TIMING_TOLERANCE_MS, TIMING_TOLERANCE_SHARE * ms);
}

/** Milliseconds as seconds for people, to 2 decimals: 730 -> "0.73 s", 60000 -> "60 s". */
function seconds(ms: number): string {
  return `${round(ms / MS_PER_SECOND)} s`;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}
