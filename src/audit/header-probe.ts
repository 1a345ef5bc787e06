import type { AuditPolicy, Family, HeaderVerdict } from './audit-report.js';
import { drain } from './drain.js';
import { readAnnouncement } from '../core/header-fields.js';
import { judgeHeaders, retryCheckPlan, type RetryCheck, type RetryCheckPlan } from './header-truth.js';
import type { Identity, IdentityPool } from './identities.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';
import type { Readings } from './readings.js';
import { isAdmittedShot, isDeniedShot } from './shot-outcome.js';

/** A fresh client run to its first denial, and the plan for checking the wait that denial announced. */
interface Denied {
  identity: Identity;
  denial: ProbeShot;
  plan: RetryCheckPlan;
}

/**
 * The retry checks: a fresh client run to its denial is asked again at the wait its denial
 * announced (it must be admitted then); when the wait is 2 s or more, a twin client in the
 * same state asks clearly earlier (more than the 1 s rounding before: it must still be
 * denied). A check past the time left is not sent: the verdict then rests on the measured
 * recovery. Returns the checks sent.
 */
export async function probeRetryChecks(client: ProbeClient, pool: IdentityPool, quota: number): Promise<RetryCheck[]> {
  const at = await runToDenial(client, pool.fresh(), quota);
  if (!at) return [];
  const early = at.plan.earlySentMs === undefined ? undefined : await runToDenial(client, pool.fresh(), quota);
  const checks = await Promise.all([
    check(client, at, at.plan.atSentMs),
    early?.plan.earlySentMs === undefined ? undefined : check(client, early, early.plan.earlySentMs),
  ]);
  return checks.filter((c): c is RetryCheck => c !== undefined);
}

async function runToDenial(client: ProbeClient, identity: Identity, quota: number): Promise<Denied | undefined> {
  const run = await drain(client, 'retry-after', identity, { cap: 2 * quota + 2 });
  const denial = run.stoppedAt;
  if (!denial || denial.status === undefined) return undefined;
  const plan = retryCheckPlan(readAnnouncement(denial.headers, denial.epochMs), denial.sentMs);
  return plan ? { identity, denial, plan } : undefined;
}

async function check(client: ProbeClient, denied: Denied, sendAtMs: number): Promise<RetryCheck | undefined> {
  if (sendAtMs > client.now() + client.timeLeftMs) return undefined;
  await client.sleepUntil(sendAtMs);
  const shot = await client.send('retry-after', denied.identity);
  return {
    fields: denied.plan.fields,
    announcedMs: denied.plan.announcedMs,
    sentAfterMs: shot.sentMs - denied.denial.sentMs,
    admitted: isAdmittedShot(shot),
  };
}

/**
 * The verdict on each rate-limit field the endpoint sends (or a missing row per convention
 * it does not), from the discovery's sequence, the retry checks and the measured policy;
 * `shots` are every request sent (a queue's first denial comes from its burst).
 */
export function headerVerdicts(
  readings: Readings,
  shots: readonly ProbeShot[],
  policy: AuditPolicy,
  family: Family,
): HeaderVerdict[] {
  const discovery = readings.discovery;
  if (!discovery) return [];
  // A queue denies nothing one request at a time: its first denial (from the burst) is the one judged.
  const denial = discovery.denial === undefined ? shots.find(isDeniedShot) : undefined;
  const run = denial ? [...discovery.run.shots, denial] : discovery.run.shots;
  const sequence = run.map((shot) => ({
    sentMs: shot.sentMs,
    epochMs: shot.epochMs,
    admitted: isAdmittedShot(shot),
    headers: shot.headers,
  }));
  return judgeHeaders({
    sequence,
    retryChecks: readings.retryChecks ?? [],
    measured: { family, ...policy, ...recoveryOf(readings) },
  });
}

/** From the discovery's denial to its client's first admission again, and how finely the polls timed it. */
function recoveryOf(readings: Readings): { recoveryMs?: number; recoveryResolutionMs?: number } {
  const denial = readings.discovery?.denial;
  const first = readings.staircase?.returns[0];
  if (!denial || !first) return {};
  return { recoveryMs: first.atMs - denial.sentMs, recoveryResolutionMs: first.atMs - first.afterMs };
}
