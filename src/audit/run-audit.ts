import type { AuditReport } from './audit-report.js';
import { buildReport } from './build-report.js';
import { candidateHypotheses } from './candidates.js';
import { probeConcurrency } from './concurrency-probe.js';
import { probeDeniedCount } from './denied-count-probe.js';
import { discover } from './discovery-probe.js';
import { readAnnouncement } from '../core/header-fields.js';
import { probeRetryChecks } from './header-probe.js';
import { probeEdge } from './edge-probe.js';
import { clientHistories } from './fit.js';
import { IdentityPool, type Identity } from './identities.js';
import { inferFamily } from './inference.js';
import type { Hypothesis } from './models.js';
import { AuditStopped, ProbeClient, type ProbeShot } from './probe-client.js';
import { probeQueue } from './queue-probe.js';
import type { Readings } from './readings.js';
import type { AuditOptions } from './run-options.js';
import { probeScope } from './scope-probe.js';
import { probeSoak } from './soak-probe.js';
import { probeSplits, splitGaps } from './split-probe.js';
import { drain } from './drain.js';
import { pollStaircase, type Return, type Staircase } from './staircase.js';

/** The share of `--max-requests` the discovery may spend looking for the first denial. */
const DISCOVERY_SHARE = 0.6;
/** The share of `--max-time` the recovery polling may take (the later probes need the rest). */
const RECOVERY_SHARE = 0.6;
/** The share of `--max-requests` the recovery polling may send. */
const RECOVERY_REQUEST_SHARE = 0.3;
/** The share each probe beside it (the sparse poller, the split) may send. */
const SIDE_REQUEST_SHARE = 0.1;
/** The shortest wait between two polls, ms. */
const MIN_GAP_MS = 2;
/** Margin past a moment the policy predicts, ms: the endpoint's clock and ours differ by a request's flight. */
const MARGIN_MS = 15;
/** Slack on top of the lockout's four times the sparse poller's wait, ms. */
const LOCKOUT_GRACE_MS = 200;
/** Units a trickle must bring back before its rate is believed. */
const TRICKLE_UNITS = 50;
/** Probes whose shots no model is fitted to: many in flight at once (a racy store over-admits there by design). */
const UNFITTED = new Set(['concurrency', 'queue']);

/**
 * Probes the endpoint and infers what its limiter does (docs/audit.md tells how each
 * conclusion is drawn). Never throws for what the endpoint does: its verdict is `none` or
 * `unknown`. Throws `ENDPOINT_UNAVAILABLE` when the first request gets no response, and
 * `INVALID_ARGUMENT` when it is redirected. A bound reached or the signal aborting ends
 * the probes; the report then holds what was learned (`stoppedBy` says why).
 */
export async function runAudit(options: AuditOptions): Promise<AuditReport> {
  const progress = new ProgressFeed(options);
  const client = new ProbeClient({
    url: options.url,
    keyHeader: options.keyHeader,
    inFlight: options.inFlight,
    maxRequests: options.maxRequests,
    maxTimeMs: options.maxTimeMs,
    timeoutMs: options.timeoutMs,
    ...(options.signal ? { signal: options.signal } : {}),
    onShot: () => progress.tick(client),
  });
  const pool = new IdentityPool(options.url.hostname.replace(/^\[(.*)\]$/, '$1'), options.keyHeader);
  const readings: Readings = { hintedWindowsMs: [], weaker: [] };
  try {
    await probeAll({ client, pool, options, readings, progress: (phase) => progress.enter(phase, client) });
  } catch (error) {
    if (!(error instanceof AuditStopped)) throw error;
  } finally {
    client.close();
  }
  infer(client, readings);
  return buildReport(readings, client, options);
}

type Progress = (phase: string) => void;

/** One audit under way: what every probe step works with. */
interface Audit {
  client: ProbeClient;
  pool: IdentityPool;
  options: AuditOptions;
  readings: Readings;
  progress: Progress;
}

/** How often the progress is told of requests within a phase, ms. */
const PROGRESS_EVERY_MS = 100;

/** Tells `onProgress` of each new phase, and of the requests sent within one, at most every {@link PROGRESS_EVERY_MS}. */
class ProgressFeed {
  private phase = 'discovery';
  private toldMs = -Infinity;

  constructor(private readonly options: AuditOptions) {}

  enter(phase: string, client: ProbeClient): void {
    this.phase = phase;
    this.tell(client);
  }

  tick(client: ProbeClient): void {
    if (client.now() - this.toldMs >= PROGRESS_EVERY_MS) this.tell(client);
  }

  private tell(client: ProbeClient): void {
    this.toldMs = client.now();
    this.options.onProgress?.({ phase: this.phase, requests: client.requests, elapsedMs: client.now() });
  }
}

async function probeAll(audit: Audit): Promise<void> {
  const { client, pool, options, readings, progress } = audit;
  progress('discovery');
  const discovery = await discover(client, pool.fresh(), Math.floor(options.maxRequests * DISCOVERY_SHARE));
  readings.discovery = discovery;
  if (discovery.queueing) return probeQueueing(audit);
  if (discovery.denial === undefined) {
    progress('concurrency');
    readings.concurrency = await probeConcurrency(client, pool.fresh(), options.inFlight, 0);
    return;
  }
  progress('scope');
  const quota = discovery.run.admitted;
  readings.scope = await probeScope(client, {
    pool,
    exhausted: discovery.identity,
    quota,
    keyHeader: options.keyHeader,
    paths: options.paths,
  });
  progress('recovery');
  const perClient = readings.scope.scope.kind !== 'global' && readings.scope.scope.kind !== 'route';
  readings.hintedWindowsMs = announcedWindows(discovery.denial);
  await Promise.all([
    probeRecovery(audit, perClient),
    perClient ? probeRetryChecks(client, pool, quota).then((checks) => (readings.retryChecks = checks)) : 0,
    perClient
      ? probeConcurrency(client, pool.fresh(), options.inFlight, quota).then((r) => (readings.concurrency = r))
      : 0,
  ]);
  infer(client, readings);
  progress('confirmation');
  await probeAfterInference(audit, perClient);
}

/**
 * The recovery staircase of the exhausted client and, beside it, two fresh clients: one
 * polled sparsely (each wait twice the last, so it is knocked on a few times only: a
 * limiter whose denials count lets it back in where the busy poller stays locked out) and
 * the split probe.
 */
async function probeRecovery(audit: Audit, perClient: boolean): Promise<void> {
  const { client, pool, readings } = audit;
  const discovery = readings.discovery;
  if (!discovery?.denial) return;
  const quota = discovery.run.admitted;
  const untilMs = RECOVERY_SHARE * (client.now() + client.timeLeftMs);
  const sideShots = SIDE_REQUEST_SHARE * audit.options.maxRequests;
  const sparse: SparseSeen = {};
  let firstReturn: (value: Return | undefined) => void = () => undefined;
  const firstReturned = new Promise<Return | undefined>((resolve) => (firstReturn = resolve));
  const recovery = pollStaircase(client, {
    probe: 'recovery',
    identity: discovery.identity,
    exhaustedMs: discovery.denial.sentMs,
    cap: 2 * quota + 2,
    untilMs,
    maxShots: RECOVERY_REQUEST_SHARE * audit.options.maxRequests,
    minGapMs: MIN_GAP_MS,
    done: (returns) => {
      if (returns[0]) firstReturn(returns[0]);
      return recoveredEnough(returns, quota) || lockedOut(client, discovery.denial as ProbeShot, returns, sparse);
    },
  }).then((staircase) => {
    firstReturn(undefined);
    readings.staircase = staircase;
  });
  await Promise.all([
    recovery,
    perClient
      ? pollSparsely(client, pool.fresh(), quota, { untilMs, maxShots: sideShots }, sparse).then(
          (staircase) => (readings.sparse = staircase),
        )
      : undefined,
    perClient
      ? probeSplits(client, {
          identities: () => pool.fresh(),
          quota,
          gapsMs: splitGaps(discovery.denial.sentMs - discovery.run.startMs, untilMs - client.now()),
          firstReturn: firstReturned,
          discoveryStartMs: discovery.run.startMs,
          untilMs: client.now() + client.timeLeftMs,
          maxShots: sideShots,
          minGapMs: MIN_GAP_MS,
        })
      : undefined,
  ]);
  if (readings.staircase?.returns.length === 0 && sparse.first) readings.lockedOut = true;
  else if (readings.staircase && !readings.staircase.complete) readings.weaker.push(incompleteRecovery(readings));
}

/** What the sparse poller has seen so far, for the busy poller's lockout check. */
interface SparseSeen {
  exhaustedMs?: number;
  first?: Return;
}

/** A fresh client exhausted, then polled with each wait twice the last. */
async function pollSparsely(
  client: ProbeClient,
  identity: Identity,
  quota: number,
  bounds: { untilMs: number; maxShots: number },
  seen: SparseSeen,
): Promise<Staircase | undefined> {
  const run = await drain(client, 'sparse-recovery', identity, { cap: 2 * quota + 2 });
  if (!run.stoppedAt) return undefined;
  seen.exhaustedMs = run.stoppedAt.sentMs;
  const staircase = await pollStaircase(client, {
    probe: 'sparse-recovery',
    identity,
    exhaustedMs: run.stoppedAt.sentMs,
    cap: 2 * quota + 2,
    ...bounds,
    minGapMs: MIN_GAP_MS,
    gapShare: 1,
    done: (returns) => {
      seen.first ??= returns[0];
      return recoveredEnough(returns, quota);
    },
  });
  return { ...staircase, shots: [...run.shots, ...staircase.shots] };
}

/**
 * The busy poller is locked out: nothing came back to it in four times the wait after
 * which the sparse poller got quota back. Its own denials keep it out.
 */
function lockedOut(client: ProbeClient, denial: ProbeShot, returns: readonly Return[], sparse: SparseSeen): boolean {
  if (returns.length > 0 || !sparse.first || sparse.exhaustedMs === undefined) return false;
  const sparseWait = sparse.first.atMs - sparse.exhaustedMs;
  return client.now() - denial.sentMs > 4 * sparseWait + LOCKOUT_GRACE_MS;
}

/**
 * Enough has come back to time it: after the first return, as many units again as a quota
 * (at most {@link TRICKLE_UNITS}): a second reset of a window, a second round of a log, or a
 * trickle long enough to time its rate.
 */
function recoveredEnough(returns: readonly Return[], quota: number): boolean {
  if (returns.length === 0) return false;
  const units = returns.slice(1).reduce((sum, ret) => sum + ret.count, 0);
  return units >= Math.max(3, Math.min(quota, TRICKLE_UNITS));
}

function incompleteRecovery(readings: Readings): string {
  const returns = readings.staircase?.returns.length ?? 0;
  return returns === 0
    ? 'no quota came back within the time given to recovery: the window (or refill) is longer than the audit can wait, or denied requests keep the client locked out'
    : 'recovery was cut short by the time allowed: the window or rate rests on one reset or a short trickle';
}

/** The probes that need the inferred policy: the window edge, whether denials count, the soak. */
async function probeAfterInference(audit: Audit, perClient: boolean): Promise<void> {
  const { client, pool, options, readings, progress } = audit;
  const best = readings.inference?.best?.hypothesis;
  if (!best || readings.inference?.family === 'unknown') return;
  if (!perClient) {
    readings.weaker.push(
      'one quota for every client: the split, edge and denied-count probes need fresh clients, so they were not run',
    );
    return probeSharedConcurrency(audit, best);
  }
  await Promise.all([probeEdgeOf(audit, best), probeDenials(audit, best)]);
  infer(client, readings);
  if (options.soakMs !== undefined) {
    progress('soak');
    const { limit, windowMs } = limitPerWindow(best);
    readings.soak = await probeSoak(client, { identity: pool.fresh(), durationMs: options.soakMs, limit, windowMs });
  }
}

/**
 * With one quota for every client no fresh client exists: the concurrency probe waits out
 * a whole window (or a bucket's refill) after the last request, then runs.
 */
async function probeSharedConcurrency(audit: Audit, h: Hypothesis): Promise<void> {
  const { client, pool, options, readings } = audit;
  const { limit, windowMs } = limitPerWindow(h);
  const last = client.shots[client.shots.length - 1];
  const fullAt = (last ? last.sentMs + last.latencyMs : client.now()) + windowMs + MARGIN_MS;
  if (fullAt + windowMs > client.now() + client.timeLeftMs) {
    readings.weaker.push(
      'the concurrency probe was not run: waiting out the shared window takes longer than the time left',
    );
    return;
  }
  await client.sleepUntil(fullAt);
  readings.concurrency = await probeConcurrency(client, pool.fresh(), options.inFlight, limit);
}

async function probeEdgeOf(audit: Audit, h: Hypothesis): Promise<void> {
  const { client, pool, readings } = audit;
  if (h.family === 'token-bucket') return;
  if (h.windowMs * 1.2 > client.timeLeftMs) {
    readings.weaker.push('the window edge was not probed: the window is longer than the time left');
    return;
  }
  readings.edge = await probeEdge(client, {
    identity: pool.fresh(),
    limit: h.limit,
    windowMs: h.windowMs,
    epochAligned: h.family === 'sliding-log' ? false : h.family === 'sliding-counter' || h.alignment === 'epoch',
    epochOffsetMs: epochOffset(client),
    burstMs: burstMs(readings),
  });
}

async function probeDenials(audit: Audit, h: Hypothesis): Promise<void> {
  const { client, pool, readings } = audit;
  const needMs = h.family === 'token-bucket' ? (1000 * 12) / h.ratePerSec : 2 * h.windowMs;
  if (needMs * 1.2 > client.timeLeftMs) {
    readings.weaker.push('whether denials spend quota was not probed: it needs longer than the time left');
    return;
  }
  readings.deniedCount = await probeDeniedCount(client, {
    knocker: pool.fresh(),
    waiter: pool.fresh(),
    hypothesis: h,
    epochOffsetMs: epochOffset(client),
  });
}

/** A queueing limiter: a burst shows its queue and rate; the scope is checked while that queue is full. */
async function probeQueueing(audit: Audit): Promise<void> {
  const { client, pool, options, readings, progress } = audit;
  const discovery = readings.discovery;
  if (!discovery) return;
  progress('queue');
  const queued = pool.fresh();
  const burst = probeQueue(client, queued, options.inFlight, discovery.baseLatencyMs);
  // Denials come back at once, held requests one interval apart: check the scope while the queue is full.
  await burst.full;
  readings.scope = await probeScope(client, {
    pool,
    exhausted: queued,
    quota: 2,
    keyHeader: options.keyHeader,
    paths: options.paths,
  });
  readings.queue = await burst.done;
  if (readings.queue.denied === 0) {
    readings.weaker.push(
      `the queue took all ${options.inFlight} requests sent at once: its burst is at least that (raise --in-flight to find it)`,
    );
  }
  progress('concurrency');
  const queue = readings.queue;
  readings.concurrency = await probeConcurrency(client, pool.fresh(), options.inFlight, queue.served + queue.held);
}

/** Scores the hypotheses against every decision the fitted probes saw (see UNFITTED). */
function infer(client: ProbeClient, readings: Readings): void {
  const { discovery, staircase, scope } = readings;
  if (!discovery?.denial || !staircase || !scope) return;
  const staircases = readings.sparse ? [staircase, readings.sparse] : [staircase];
  const candidates = staircases.flatMap((each) =>
    candidateHypotheses({
      discovery: discovery.run,
      staircase: each,
      hintedWindowsMs: readings.hintedWindowsMs,
      epochOffsetMs: epochOffset(client),
    }),
  );
  const fitted = client.shots.filter((shot: ProbeShot) => !UNFITTED.has(shot.probe));
  const histories = clientHistories(fitted, scope.stateOf);
  readings.candidates = candidates;
  readings.histories = histories;
  readings.inference = inferFamily(candidates, histories);
}

/** The windows a denial's fields announce (`RateLimit-Policy` `w`), ms: tried as candidates. */
function announcedWindows(denial: ProbeShot): number[] {
  return readAnnouncement(denial.headers, denial.epochMs)
    .policies.map((policy) => policy.windowMs)
    .filter((ms): ms is number => ms !== undefined);
}

/** Epoch ms minus audit ms. */
function epochOffset(client: ProbeClient): number {
  return client.epochNow() - client.now();
}

/** How long a full quota took to send one request at a time in the discovery run, ms. */
function burstMs(readings: Readings): number {
  const run = readings.discovery?.run;
  const last = run?.shots[run.shots.length - 1];
  return run && last ? last.sentMs + last.latencyMs - run.startMs : 0;
}

/** A hypothesis as a limit per window: a bucket's burst over the time its rate refills it. */
export function limitPerWindow(h: Hypothesis): { limit: number; windowMs: number } {
  if (h.family !== 'token-bucket') return { limit: h.limit, windowMs: h.windowMs };
  return { limit: h.burst, windowMs: (1000 * h.burst) / h.ratePerSec };
}
