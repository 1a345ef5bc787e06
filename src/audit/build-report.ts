import type {
  Alignment,
  AuditConcurrency,
  AuditDenial,
  AuditPolicy,
  AuditReport,
  Confidence,
  Family,
  ProbeTimeline,
  Range,
  ShotOutcome,
} from './audit-report.js';
import { isHeld } from './discovery-probe.js';
import { clientHistories, predictions, tiedFits } from './fit.js';
import { findingsOf } from './findings.js';
import { headerVerdicts } from './header-probe.js';
import { replay, type Hypothesis } from './models.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';
import type { Readings } from './readings.js';
import type { AuditOptions } from './run-options.js';
import { isAdmittedShot, isDeniedShot } from './shot-outcome.js';

/** What each probe asked, for the timelines. */
const PURPOSES: Record<string, string> = {
  discovery: 'a fresh client, one request after another until the first denial: the quota it starts with',
  scope: 'new addresses, new keys and other paths: who shares the quota',
  recovery: 'the exhausted client polled: how its quota comes back over time',
  split: 'half the quota, the rest later: a sliding log returns them apart, a window at once',
  concurrency: 'many requests at once from a fresh client: over-admission by a racy store',
  queue: 'many requests at once: a queueing limiter serves one, holds some, denies the rest',
  edge: 'a quota just before a window ends and one just after: the edge burst',
  'denied-count': 'one client knocks while another waits: do denied requests spend quota',
  'sparse-recovery': 'a fresh client exhausted, then asked with each wait twice the last: recovery with few knocks',
  'retry-after': 'requests at the announced retry time, and earlier: is the header honest',
  soak: 'a longer run at 1.5x the inferred rate, judged against the exact oracle',
};

/** The report of the readings so far (complete or cut short). */
export function buildReport(readings: Readings, client: ProbeClient, options: AuditOptions): AuditReport {
  const family = familyOf(readings);
  const best = bestHypothesis(readings);
  const policy = policyOf(readings, best);
  const report: AuditReport = {
    format: 1,
    target: options.url.href,
    paths: [options.url.pathname + options.url.search, ...options.paths],
    algorithm: { family: family.family, confidence: family.confidence, evidence: family.evidence },
    policy,
    alignment: alignmentOf(family.family, best),
    scope: readings.scope?.scope ?? { kind: 'unknown', evidence: ['the audit stopped before the scope was probed'] },
    denial: denialOf(readings, client.shots),
    headers: headerVerdicts(readings, client.shots, policy, family.family),
    concurrency: concurrencyOf(readings, best),
    weaker: [...readings.weaker, ...stopNote(client)],
    findings: [],
    timelines: timelinesOf(readings, client.shots, best),
    requests: client.requests,
    durationMs: Math.round(client.now()),
    stoppedBy: client.stoppedBy ?? 'done',
  };
  if (readings.deniedCount) report.deniedCount = readings.deniedCount.deniedCount;
  else if (readings.lockedOut) report.deniedCount = true;
  if (readings.edge) report.edge = readings.edge.edge;
  if (readings.soak) report.soak = readings.soak.soak;
  report.findings = findingsOf(report, readings);
  return report;
}

function familyOf(readings: Readings): { family: Family; confidence: Confidence; evidence: string[] } {
  const { discovery, queue, inference } = readings;
  if (queue) {
    return {
      family: 'leaky-bucket-queue',
      confidence: queue.held >= 3 ? 'high' : 'medium',
      evidence: [
        `${discovery?.run.admitted ?? 0} requests in a row were each held ~${Math.round(heldMs(discovery?.run.shots ?? []))} ms, none denied`,
        `${queue.served + queue.held + queue.denied} at once: ${queue.served} served at once, ${queue.held} held up to ${Math.round(queue.maxDelayMs)} ms, ${queue.denied} denied`,
      ],
    };
  }
  if (discovery && !discovery.denial && !discovery.queueing) {
    const seconds = (discovery.run.shots.at(-1)?.sentMs ?? 0) / 1000;
    return {
      family: 'none',
      confidence: 'medium',
      evidence: [
        `${discovery.run.admitted} requests from one client in ${seconds.toFixed(1)} s, all admitted: no limit below that (raise --max-requests to look further)`,
      ],
    };
  }
  if (inference) return inference;
  return { family: 'unknown', confidence: 'low', evidence: ['the audit stopped before the recovery was probed'] };
}

function bestHypothesis(readings: Readings): Hypothesis | undefined {
  return readings.inference?.best?.hypothesis;
}

function heldMs(shots: readonly ProbeShot[]): number {
  const held = shots.slice(1).map((shot) => shot.latencyMs);
  return held.length === 0 ? 0 : held.reduce((a, b) => a + b, 0) / held.length;
}

/** The policy of the best hypothesis, each figure's range over the hypotheses that fit as well. */
function policyOf(readings: Readings, best: Hypothesis | undefined): AuditPolicy {
  if (readings.queue) return queuePolicy(readings);
  const fit = readings.inference?.best;
  if (!best || !fit) return { limit: null, windowMs: null, range: {} };
  const tied = tiesOf(readings);
  const ties = tied.length > 0 ? tied : [best];
  if (best.family === 'token-bucket') {
    const buckets = ties.filter(
      (h): h is Extract<Hypothesis, { family: 'token-bucket' }> => h.family === 'token-bucket',
    );
    return bucketPolicy(best.ratePerSec, best.burst, {
      ratePerSec: rangeOf(buckets.map((h) => h.ratePerSec)),
      burst: rangeOf(
        buckets.map((h) => h.burst),
        Math.round,
      ),
    });
  }
  const windows = ties.filter((h): h is Exclude<Hypothesis, { family: 'token-bucket' }> => h.family !== 'token-bucket');
  return {
    limit: best.limit,
    windowMs: best.windowMs,
    range: {
      limit: rangeOf(
        windows.map((h) => h.limit),
        Math.round,
      ),
      windowMs: rangeOf(
        windows.map((h) => h.windowMs),
        Math.round,
      ),
    },
  };
}

/** The hypotheses of the best's family that reproduce as many decisions as it does, within the noise. */
function tiesOf(readings: Readings): Hypothesis[] {
  const fit = readings.inference?.best;
  if (!fit || !readings.scope) return [];
  return tiedFits(readings.candidates ?? [], readings.histories ?? [], fit).map((tie) => tie.hypothesis);
}

function queuePolicy(readings: Readings): AuditPolicy {
  const queue = readings.queue;
  if (!queue?.ratePerSec) return { limit: null, windowMs: null, range: {} };
  const burst = queue.served + queue.held;
  const [low, high] = queue.rateRange ?? [queue.ratePerSec, queue.ratePerSec];
  // A queue that took the whole burst is at least that long: its burst has no range then (see weaker).
  return bucketPolicy(queue.ratePerSec, burst, {
    ratePerSec: [round3(low), round3(high)],
    ...(queue.denied > 0 ? { burst: [burst, burst] as const } : {}),
  });
}

/** A bucket's policy, with its equivalent limit per window: the rate over the shortest of 1 s, 1 min, 1 h that holds one request. */
function bucketPolicy(ratePerSec: number, burst: number, range: AuditPolicy['range']): AuditPolicy {
  const windowMs = ratePerSec >= 1 ? 1000 : ratePerSec * 60 >= 1 ? 60_000 : 3_600_000;
  return { limit: round3((ratePerSec * windowMs) / 1000), windowMs, burst, ratePerSec: round3(ratePerSec), range };
}

function rangeOf(values: readonly number[], round: (value: number) => number = round3): Range | undefined {
  if (values.length === 0) return undefined;
  return [round(Math.min(...values)), round(Math.max(...values))];
}

function round3(value: number): number {
  return Number.isFinite(value) ? Number(value.toPrecision(3)) : value;
}

function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function alignmentOf(family: Family, best: Hypothesis | undefined): Alignment {
  if (family === 'token-bucket' || family === 'leaky-bucket-queue' || family === 'sliding-log') return 'continuous';
  if (family === 'sliding-counter') return 'epoch';
  if (family === 'fixed-window' && best?.family === 'fixed-window') return best.alignment;
  return 'unknown';
}

function denialOf(readings: Readings, shots: readonly ProbeShot[]): AuditDenial {
  const denied = shots.filter(isDeniedShot);
  const first = readings.discovery?.denial ?? denied[0];
  const held = readings.queue ? { maxDelayMs: Math.round(readings.queue.maxDelayMs) } : {};
  if (!first || !isDeniedShot(first)) return { status: null, retryAfter: false, headers: [], ...held };
  const headers = Object.keys(first.headers).filter((name) => name !== 'location');
  return {
    status: first.status ?? null,
    retryAfter: 'retry-after' in first.headers,
    ...(first.body ? { body: first.body } : {}),
    headers,
    ...held,
  };
}

function concurrencyOf(readings: Readings, best: Hypothesis | undefined): AuditConcurrency | null {
  const reading = readings.concurrency;
  if (!reading) return null;
  const expected = readings.queue ? reading.inFlight - queueDenials(readings) : expectedAtOnce(reading, best);
  return {
    inFlight: reading.inFlight,
    admitted: reading.admitted,
    expected,
    overAdmitted: expected === null ? 0 : overAdmission(reading.admitted, expected),
  };
}

/**
 * What the inferred policy's exact model admits of the concurrency burst, given the
 * requests spent before it: the quota left, plus what a bucket refilled meanwhile, or a
 * whole new window when one began in between.
 */
function expectedAtOnce(reading: NonNullable<Readings['concurrency']>, best: Hypothesis | undefined): number | null {
  if (!best) return null;
  // Each request taken as decided as late as its answer allows: the most the policy admits.
  const latest = reading.shots.map((shot) => shot.epochMs + shot.latencyMs).sort((a, b) => a - b);
  const admitted = replay(best, latest).filter(Boolean).length;
  return Math.max(0, admitted - reading.spent);
}

/**
 * Admitted beyond the policy's figure, past the timing tolerance (one request and 2% of
 * the figure: a request decided a fraction of a millisecond later than its flight suggests
 * may find one more token); 0 within it.
 */
function overAdmission(admitted: number, expected: number): number {
  const excess = admitted - expected;
  return excess > 1 + 0.02 * expected ? excess : 0;
}

/** How many of a burst as large as the queue probe's a queueing limiter denies (its queue is full beyond the rest). */
function queueDenials(readings: Readings): number {
  return readings.queue?.denied ?? 0;
}

function stopNote(client: ProbeClient): string[] {
  switch (client.stoppedBy) {
    case undefined:
      return [];
    case 'max-requests':
      return ['--max-requests was reached: the probes after it did not run'];
    case 'max-time':
      return ['--max-time was reached: the probes after it did not run'];
    case 'interrupted':
      return ['interrupted: the probes after it did not run'];
  }
}

/** Each probe's shots, in order, with what the inferred policy's exact model decides of them. */
function timelinesOf(readings: Readings, shots: readonly ProbeShot[], best: Hypothesis | undefined): ProbeTimeline[] {
  const predicted =
    best && readings.scope ? predictions(best, clientHistories(shots, readings.scope.stateOf)) : undefined;
  const base = readings.discovery?.baseLatencyMs ?? 1;
  const byProbe = new Map<string, ProbeShot[]>();
  for (const shot of shots) {
    const list = byProbe.get(shot.probe);
    if (list) list.push(shot);
    else byProbe.set(shot.probe, [shot]);
  }
  return [...byProbe].map(([probe, list]) => {
    const timeline: ProbeTimeline = {
      probe,
      purpose: PURPOSES[probe] ?? probe,
      shots: list.map((shot) => ({
        sentMs: tenths(shot.sentMs),
        latencyMs: tenths(shot.latencyMs),
        outcome: outcomeOf(shot, base),
        status: shot.status ?? null,
      })),
    };
    if (predicted && !readings.queue && probe !== 'concurrency') {
      timeline.oracle = list.map((shot) => predicted.get(shot) ?? false);
    }
    return timeline;
  });
}

function outcomeOf(shot: ProbeShot, baseLatencyMs: number): ShotOutcome {
  if (isAdmittedShot(shot)) return isHeld(shot.latencyMs, baseLatencyMs) ? 'delayed' : 'admitted';
  return isDeniedShot(shot) ? 'denied' : 'error';
}
