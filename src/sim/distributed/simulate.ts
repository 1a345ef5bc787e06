import type { ReplayMetrics } from '../../metrics/recorder.js';
import type { Timeline } from '../../metrics/timeline.js';
import { checkPolicy } from '../../core/policy.js';
import type { Scenario } from '../../scenario/scenario.js';
import { Random } from '../../traffic/random.js';
import type { WorkloadComparison } from '../comparison.js';
import type { Contender } from '../contender.js';
import { replay } from '../replay.js';
import { followKeys, type FocusPlan, type FocusView } from '../focus.js';
import { scenarioWorkload } from '../workload.js';
import { Fleet } from './fleet.js';
import type { FailMode } from '../../core/fail-over.js';
import type { FleetOptions, Strategy } from './fleet-options.js';
import type { Outage } from './outage.js';

/** The replay metrics a row carries. */
type RowCounts = Pick<
  ReplayMetrics,
  'offered' | 'admitted' | 'denied' | 'falseAdmits' | 'falseDenials' | 'errorRate' | 'worstWindowRatio' | 'keys'
>;

/**
 * One row of a distributed comparison: one scenario through one fleet design. The counts
 * are the lab's `ReplayMetrics` against the exact GLOBAL oracle (one sliding log fed the
 * whole stream): `falseAdmits` / `falseDenials` request by request, `worstWindowRatio`
 * over the global limit.
 */
export interface DistributedRow extends RowCounts {
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
  /** Mean wait on the network per decision, ms. */
  addedLatencyMs: number;
  /** 99th percentile of that wait, ms. */
  addedLatencyP99Ms: number;
  /**
   * Calls to the store over the run, one per round trip: each `central` decision, and at
   * every `sync` tick one per node; calls sent while the store was down (which time out)
   * included. 0 for `local-split`.
   */
  storeCalls: number;
  /** `storeCalls` per decision offered (0 when none was offered). */
  storeCallsPerDecision: number;
  /** Requests offered / admitted while the store was down; null without an outage or a store. */
  outageOffered: number | null;
  outageAdmitted: number | null;
}

/** Everything one scenario produced across the designs; `worstWindows` in row order. */
export interface DistributedComparison extends Pick<
  WorkloadComparison,
  'name' | 'description' | 'policy' | 'worstWindows'
> {
  rows: DistributedRow[];
  /** Per design, in row order. */
  timelines: { design: string; timeline: Timeline }[];
  /** Keys followed through every design (the HTML report's), when asked for (SimulateOptions.follow). */
  followed?: FocusView[];
}

/** Options of {@link simulateDistributed}. */
export interface SimulateOptions {
  /** Keys to follow through every design in a second pass, given the first (see followKeys). */
  follow?(result: DistributedComparison): FocusPlan[];
}

/**
 * Replays `scenario` through each fleet design (each on its own virtual clock and its own
 * stream) and measures it against the exact global oracle with the lab's recorder.
 * The load balancer draws from the seed's stream just after the scenario's sources, so
 * its picks never change the arrivals. Throws `INVALID_POLICY` before anything runs.
 */
export async function simulateDistributed(
  scenario: Scenario,
  designs: readonly FleetOptions[],
  settings: SimulateOptions = {},
): Promise<DistributedComparison> {
  const workload = scenarioWorkload(scenario);
  for (const options of designs) checkPolicy(scenario.policy, options.algorithm);
  const result: DistributedComparison = {
    name: scenario.name,
    description: scenario.description,
    policy: scenario.policy,
    rows: [],
    timelines: [],
    worstWindows: [],
  };
  const contenders: Contender[] = [];
  for (const options of designs) {
    let fleet: Fleet | undefined;
    const contender: Contender = {
      name: designName(options),
      probe: { algorithm: options.algorithm, policy: scenario.policy },
      stateBytesPerKey: undefined,
      create: (clock) =>
        (fleet = new Fleet(options, scenario.policy, clock, new Random(scenario.seed, scenario.sources.length))),
    };
    contenders.push(contender);
    const { metrics } = await replay(contender, workload.open(), {
      limit: scenario.policy.limit,
      windowMs: scenario.policy.windowMs,
      bucketMs: workload.bucketMs,
      originMs: workload.originMs,
      minBuckets: workload.minBuckets,
    });
    (fleet as Fleet).endRun(scenario.durationMs);
    result.rows.push(toRow(scenario.name, contender.name, options, metrics, fleet as Fleet));
    result.timelines.push({ design: contender.name, timeline: metrics.timeline });
    result.worstWindows.push(metrics.worstWindow);
  }
  const plans = settings.follow?.(result) ?? [];
  if (plans.length > 0) result.followed = await followKeys(workload, contenders, plans);
  return result;
}

/** `central`, `sync`, `local-split`; with an outage, the fail mode too: `central/open`. */
export function designName(options: FleetOptions): string {
  const usesStore = options.strategy !== 'local-split';
  return usesStore && options.outage !== undefined ? `${options.strategy}/${options.failMode}` : options.strategy;
}

function toRow(
  scenario: string,
  design: string,
  options: FleetOptions,
  m: ReplayMetrics,
  fleet: Fleet,
): DistributedRow {
  const usesStore = options.strategy !== 'local-split';
  const latency = fleet.addedLatency();
  const outage = fleet.outageCounts();
  const storeCalls = fleet.storeCalls();
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
    ...counts(m),
    addedLatencyMs: latency.meanMs,
    addedLatencyP99Ms: latency.p99Ms,
    storeCalls,
    storeCallsPerDecision: m.offered === 0 ? 0 : storeCalls / m.offered,
    outageOffered: measuredOutage ? outage.offered : null,
    outageAdmitted: measuredOutage ? outage.admitted : null,
  };
}

/** The metrics a row carries: the counts against the global oracle and the worst window. */
function counts(m: ReplayMetrics): RowCounts {
  const { offered, admitted, denied, falseAdmits, falseDenials, errorRate, worstWindowRatio, keys } = m;
  return { offered, admitted, denied, falseAdmits, falseDenials, errorRate, worstWindowRatio, keys };
}
