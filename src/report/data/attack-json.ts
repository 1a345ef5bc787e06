import type { AttackReport } from '../attack-report.js';

/** The `attack` section of the JSON report: everything measured beyond compare's rows. */
export function attackJson(report: AttackReport): Record<string, unknown> {
  const { analysis, run } = report;
  return {
    attack: {
      url: report.url.href,
      speed: report.speed,
      startedAt: new Date(run.startEpochMs).toISOString(),
      stoppedBy: run.stoppedBy,
      unsent: run.unsent,
      maxLagMs: Math.round(run.maxLagMs * 10) / 10,
      policySource: analysis.policy.source,
      // Each advertised limit's worst window (a key held to several limits); empty for one.
      limits: analysis.limits,
      responses: analysis.responses,
      latencyMs: analysis.latencyMs,
      probes: analysis.probes,
      headerProblems: analysis.headerProblems,
      // With --metrics-url: the server's own counts during the run beside the client's.
      ...(report.serverCounts === undefined ? {} : { serverCounts: report.serverCounts }),
    },
  };
}
