import type { AuditDenial, AuditPolicy, AuditReport, AuditScope, ProbeTimeline } from '../../audit/audit-report.js';

/** Every field of `T` named, an absent optional one as undefined (JSON drops it). */
type AllFields<T> = Record<keyof T, unknown>;

/**
 * `ratelab audit --json`: the AuditReport as it is (format 1), its keys always in the
 * order of the type, whatever order the probes filled them in, so two reports diff line
 * by line. A field added to the type fails to compile here until it is placed.
 */
export function auditJson(report: AuditReport): string {
  const ordered: AllFields<AuditReport> = {
    format: report.format,
    target: report.target,
    paths: report.paths,
    algorithm: {
      family: report.algorithm.family,
      confidence: report.algorithm.confidence,
      evidence: report.algorithm.evidence,
    },
    policy: orderedPolicy(report.policy),
    deniedCount: report.deniedCount,
    alignment: report.alignment,
    scope: orderedScope(report.scope),
    denial: orderedDenial(report.denial),
    headers: report.headers.map((h) => ({ name: h.name, verdict: h.verdict, detail: h.detail })),
    concurrency: report.concurrency && {
      inFlight: report.concurrency.inFlight,
      admitted: report.concurrency.admitted,
      expected: report.concurrency.expected,
      overAdmitted: report.concurrency.overAdmitted,
    },
    edge: report.edge && {
      worstWindowRatio: report.edge.worstWindowRatio,
      before: report.edge.before,
      after: report.edge.after,
      spanMs: report.edge.spanMs,
    },
    soak: report.soak && {
      durationMs: report.soak.durationMs,
      requests: report.soak.requests,
      admitted: report.soak.admitted,
      oracleAdmitted: report.soak.oracleAdmitted,
      falseAdmits: report.soak.falseAdmits,
      falseDenials: report.soak.falseDenials,
      worstWindowRatio: report.soak.worstWindowRatio,
    },
    weaker: report.weaker,
    findings: report.findings.map((f) => ({
      topic: f.topic,
      conclusion: f.conclusion,
      evidence: f.evidence,
      confidence: f.confidence,
    })),
    timelines: report.timelines.map(orderedTimeline),
    requests: report.requests,
    durationMs: report.durationMs,
    stoppedBy: report.stoppedBy,
    expect: report.expect && {
      claim: report.expect.claim,
      passed: report.expect.passed,
      mismatches: report.expect.mismatches,
    },
  };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

function orderedPolicy(policy: AuditPolicy): AllFields<AuditPolicy> {
  const { range } = policy;
  return {
    limit: policy.limit,
    windowMs: policy.windowMs,
    burst: policy.burst,
    ratePerSec: policy.ratePerSec,
    range: { limit: range.limit, windowMs: range.windowMs, burst: range.burst, ratePerSec: range.ratePerSec },
  };
}

function orderedScope(scope: AuditScope): AllFields<AuditScope> {
  return { kind: scope.kind, header: scope.header, routes: scope.routes, evidence: scope.evidence };
}

function orderedDenial(denial: AuditDenial): AllFields<AuditDenial> {
  return {
    status: denial.status,
    retryAfter: denial.retryAfter,
    body: denial.body,
    headers: denial.headers,
    maxDelayMs: denial.maxDelayMs,
  };
}

function orderedTimeline(timeline: ProbeTimeline): AllFields<ProbeTimeline> {
  return {
    probe: timeline.probe,
    purpose: timeline.purpose,
    shots: timeline.shots.map((s) => ({
      sentMs: s.sentMs,
      latencyMs: s.latencyMs,
      outcome: s.outcome,
      status: s.status,
    })),
    oracle: timeline.oracle,
  };
}
