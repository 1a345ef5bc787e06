import type { DistributedComparison } from '../../sim/distributed/simulate.js';
import { roundToPlaces } from '../round.js';
import { JSON_FORMAT_VERSION, withErrorPercent } from './json-format.js';

/**
 * The JSON report of `ratelab distributed`: `scenario` (name, description, global policy,
 * the one-line summary), `rows` (one per design: `strategy, failMode, design, nodes,
 * balance, offered, admitted, falseAdmits, falseDenials, errorPercent, worstWindowRatio, addedLatencyMs,
 * addedLatencyP99Ms, storeCalls, storeCallsPerDecision, outageOffered, outageAdmitted`, the
 * fleet's settings, and where the worst window was) and `timelines` (offered and admitted
 * units per bucket per design).
 */
export function distributedJson(result: DistributedComparison, summary: string): string {
  const report = {
    version: JSON_FORMAT_VERSION,
    scenario: { name: result.name, description: result.description, policy: result.policy, summary },
    rows: result.rows.map((row, i) => ({
      ...withErrorPercent(row),
      worstWindowRatio: roundToPlaces(row.worstWindowRatio, 6),
      addedLatencyMs: roundToPlaces(row.addedLatencyMs, 6),
      storeCallsPerDecision: roundToPlaces(row.storeCallsPerDecision, 6),
      worstWindow: result.worstWindows[i] ?? null,
    })),
    timelines: result.timelines.map(({ design, timeline }) => ({ scenario: result.name, design, ...timeline })),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}
