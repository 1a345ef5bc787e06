import type { ReplayMetrics } from '../../metrics/recorder.js';
import type { Timeline } from '../../metrics/timeline.js';
import { checkPolicy, type Policy } from '../../policy.js';
import type { Scenario } from '../../scenario/scenario.js';
import { Random } from '../../traffic/random.js';
import type { Contender } from '../contender.js';
import { replay } from '../replay.js';
import { scenarioWorkload } from '../workload.js';
import { Fleet } from './fleet.js';
import type { FailMode, FleetOptions, Strategy } from './fleet-options.js';
import type { Outage } from './outage.js';

/** One row of a distributed comparison: one scenario through one fleet design. */
export interface DistributedRow {
  scenario: string;
  /** The design's name in reports: the strategy, with the fail mode when an outage is simulated. */
  design: string;
  strategy: Strategy;
  /** `none` for a design that never talks to the store (`local-split`). */
  failMode: FailMode | 'none';
  nodes: number;
  balance: FleetOptions['balance'];
  algorithm: FleetOptions['algorithm'];
  /** Sync period, ms; null for designs that do not sync. */
  syncMs: number | null;
  rttMs: number;
  timeoutMs: number;
  outage: Outage | null;
  offered: number;
  admitted: number;
  denied: number;
  /** Admitted where the exact global oracle (one sliding log fed the whole stream) denies. */
  falseAdmits: number;
  /** Denied where the exact global oracle admits. */
  falseDenials: number;
  /** Percent of offered requests decided differently from the oracle. */
  errorRate: number;
  /** Most units admitted for one key in any window, over the GLOBAL limit. */
  worstWindowRatio: number;
  /** Mean wait on the network per decision, ms. */
  addedLatencyMs: number;
  /** 99th percentile of that wait, ms. */
  addedLatencyP99Ms: number;
  /** Requests offered / admitted while the store was down; null without an outage or a store. */
  outageOffered: number | null;
  outageAdmitted: number | null;
  keys: number;
}

/** Everything one scenario produced across the designs. */
export interface DistributedComparison {
  name: string;
  description: string;
  policy: Policy;
  rows: DistributedRow[];
  /** Per design, in row order. */
  timelines: { design: string; timeline: Timeline }[];
  /** Per design, in row order: where its worst window was. */
  worstWindows: ReplayMetrics['worstWindow'][];
}

/**
 * Replays `scenario` through each fleet design (each on its own virtual clock and its own
 * stream) and measures it against the exact global oracle with the lab's recorder.
 * The load balancer draws from the seed's stream just after the scenario's sources, so
 * its picks never change the arrivals. Throws `INVALID_POLICY` before anything runs.
 */
export async function simulateDistributed(scenario: Scenario, designs: readonly FleetOptions[]): Promise<DistributedComparison> {
  const workload = scenarioWorkload(scenario);
  for (const options of designs) checkPolicy(scenario.policy, options.algorithm);
  const result: DistributedComparison = { name: scenario.name, description: scenario.description, policy: scenario.policy, rows: [], timelines: [], worstWindows: [] };
  for (const options of designs) {
    let fleet: Fleet | undefined;
    const contender: Contender = {
      name: designName(options),
      probe: { algorithm: options.algorithm, policy: scenario.policy },
      stateBytesPerKey: undefined,
      create: (clock) => (fleet = new Fleet(options, scenario.policy, clock, new Random(scenario.seed, scenario.sources.length))),
    };
    const { metrics } = await replay(contender, workload.open(), {
      limit: scenario.policy.limit,
      windowMs: scenario.policy.windowMs,
      bucketMs: workload.bucketMs,
      originMs: workload.originMs,
      minBuckets: workload.minBuckets,
    });
    result.rows.push(toRow(scenario.name, contender.name, options, metrics, fleet as Fleet));
    result.timelines.push({ design: contender.name, timeline: metrics.timeline });
    result.worstWindows.push(metrics.worstWindow);
  }
  return result;
}

/** `central`, `sync`, `local-split`; with an outage, the fail mode too: `central/open`. */
export function designName(options: FleetOptions): string {
  const usesStore = options.strategy !== 'local-split';
  return usesStore && options.outage !== undefined ? `${options.strategy}/${options.failMode}` : options.strategy;
}

function toRow(scenario: string, design: string, options: FleetOptions, m: ReplayMetrics, fleet: Fleet): DistributedRow {
  const usesStore = options.strategy !== 'local-split';
  const latency = fleet.latencySummary();
  const outage = fleet.outageCounts();
  const measuredOutage = usesStore && options.outage !== undefined;
  return {
    scenario,
    design,
    strategy: options.strategy,
    failMode: usesStore ? options.failMode : 'none',
    nodes: options.nodes,
    balance: options.balance,
    algorithm: options.algorithm,
    syncMs: options.strategy === 'sync' ? options.syncMs : null,
    rttMs: options.rttMs,
    timeoutMs: options.timeoutMs,
    outage: options.outage ?? null,
    offered: m.offered,
    admitted: m.admitted,
    denied: m.denied,
    falseAdmits: m.falseAdmits,
    falseDenials: m.falseDenials,
    errorRate: m.errorRate,
    worstWindowRatio: m.worstWindowRatio,
    addedLatencyMs: latency.meanMs,
    addedLatencyP99Ms: latency.p99Ms,
    outageOffered: measuredOutage ? outage.offered : null,
    outageAdmitted: measuredOutage ? outage.admitted : null,
    keys: m.keys,
  };
}
