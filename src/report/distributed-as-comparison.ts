import type { WorkloadComparison } from '../sim/comparison.js';
import type { DistributedComparison } from '../sim/distributed/simulate.js';

/**
 * A distributed comparison in the shape of the lab's `compare` results, each design in
 * place of an algorithm, so the lab's sentence (`summarise`) and charts (`renderCharts`)
 * render it unchanged. The figures the simulator does not measure are null.
 */
export function asComparison(result: DistributedComparison): WorkloadComparison {
  return {
    name: result.name,
    description: result.description,
    policy: result.policy,
    rows: result.rows.map((row) => ({
      scenario: row.scenario,
      algorithm: row.design,
      offered: row.offered,
      admitted: row.admitted,
      denied: row.denied,
      falseAdmits: row.falseAdmits,
      falseDenials: row.falseDenials,
      errorRate: row.errorRate,
      worstWindowRatio: row.worstWindowRatio,
      fairness: null,
      bytesPerKey: null,
      stateBytesPerKey: null,
      opsPerSec: null,
      speedRatio: null,
      keys: row.keys,
    })),
    timelines: result.timelines.map(({ design, timeline }) => ({ algorithm: design, timeline })),
    worstWindows: result.worstWindows,
    notes: [],
  };
}
