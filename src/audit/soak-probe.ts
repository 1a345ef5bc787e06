import type { AuditSoak } from './audit-report.js';
import type { Identity } from './identities.js';
import { judgeAgainstOracle } from './oracle-judge.js';
import type { ProbeClient, ProbeShot } from './probe-client.js';

/** A soak run and its judgement. */
export interface SoakReading {
  soak: AuditSoak;
  shots: ProbeShot[];
}

/** Options of {@link probeSoak}. */
export interface SoakOptions {
  identity: Identity;
  durationMs: number;
  /** The inferred policy, as a limit per window. */
  limit: number;
  windowMs: number;
}

/** The soak offers this much more than the policy admits, so the limiter decides throughout. */
const OVERLOAD = 1.5;

/**
 * Drift over a longer run: one fresh client sends at 1.5 times the inferred rate for
 * `durationMs`, one request at a time, and what the endpoint admitted is judged with the
 * lab's metrics against the exact oracle of the inferred policy.
 */
export async function probeSoak(client: ProbeClient, options: SoakOptions): Promise<SoakReading> {
  const { identity, durationMs, limit, windowMs } = options;
  const gapMs = windowMs / limit / OVERLOAD;
  const startMs = client.now();
  const shots: ProbeShot[] = [];
  for (let i = 0; startMs + i * gapMs < startMs + durationMs; i++) {
    await client.sleepUntil(startMs + i * gapMs);
    shots.push(await client.send('soak', identity));
  }
  const metrics = judgeAgainstOracle(shots, limit, windowMs);
  return {
    soak: {
      durationMs: client.now() - startMs,
      requests: metrics.offered,
      admitted: metrics.admitted,
      oracleAdmitted: metrics.admitted - metrics.falseAdmits + metrics.falseDenials,
      falseAdmits: metrics.falseAdmits,
      falseDenials: metrics.falseDenials,
      worstWindowRatio: metrics.worstWindowRatio,
    },
    shots,
  };
}
