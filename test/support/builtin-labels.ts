import type { Algorithm } from '../../src/core/policy.js';
import type { LabelMetrics } from '../../src/metrics/label-counts.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';
import { builtinContender } from '../../src/sim/contender.js';
import { replay } from '../../src/sim/replay.js';
import { scenarioWorkload } from '../../src/sim/workload.js';

/**
 * Replays the built-in scenario `name` through `algorithm` at the scenario's own policy and
 * returns what the server saw per label (client kind): the lab's per-label figures, as the
 * client-scenario tests read them.
 */
export async function builtinLabelMetrics(name: string, algorithm: Algorithm): Promise<Map<string, LabelMetrics>> {
  const scenario = builtinScenarios().find((s) => s.name === name);
  if (!scenario) throw new Error(`no built-in scenario ${name}`);
  const workload = scenarioWorkload(scenario);
  const { limit, windowMs } = scenario.policy;
  const { metrics } = await replay(builtinContender(algorithm, scenario.policy), workload.open(), {
    limit,
    windowMs,
    bucketMs: workload.bucketMs,
    originMs: 0,
    minBuckets: workload.minBuckets,
  });
  return new Map(metrics.labels.map((l) => [l.label, l]));
}
