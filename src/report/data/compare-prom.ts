import type { WorkloadComparison } from '../../sim/comparison.js';
import { decisionsText, type DecisionCount } from './prometheus-text.js';

/**
 * A comparison's decisions as `ratelab serve --metrics` exposes its own: the counter
 * `ratelab_decisions_total`, one `allowed` and one `denied` sample per scenario and
 * contender, labelled `limiter` = the contender (algorithm or --limiter module, the row's
 * name), `tier` = the scenario (the row's `scenario`), so a dashboard that reads serve's
 * series per tier reads each scenario of a lab run as a tier. A replay never fails or
 * shadows, so the other outcomes are left out (a missing series reads as none in PromQL).
 */
export function comparisonProm(results: readonly WorkloadComparison[]): string {
  const counts: DecisionCount[] = [];
  for (const result of results) {
    for (const row of result.rows) {
      counts.push({ limiter: row.algorithm, tier: row.scenario, outcome: 'allowed', value: row.admitted });
      counts.push({ limiter: row.algorithm, tier: row.scenario, outcome: 'denied', value: row.denied });
    }
  }
  return decisionsText(counts);
}
