import { basename } from 'node:path';
import type { Policy } from '../core/policy.js';
import type { Scenario } from '../scenario/scenario.js';
import { TrafficStream, openScenario } from '../traffic/stream.js';
import { TraceSource, type TraceOptions } from '../traffic/trace/trace-source.js';

/** Something to replay: a name, a policy, and a way to open a fresh stream of its arrivals. */
export interface Workload {
  name: string;
  /** One line: what it shows. */
  description: string;
  policy: Policy;
  /** Width of a timeline bucket, ms. */
  bucketMs: number;
  /** Start of the timeline (default: the first arrival). */
  originMs?: number;
  /** The timeline covers at least this many buckets. */
  minBuckets?: number;
  /** A fresh stream, from the first arrival: called once per replay (per contender when the stream is closed-loop). */
  open(): TrafficStream;
  /** Remarks known after a replay (lines skipped in a trace). */
  notes(): string[];
}

/** A scenario as a workload. */
export function scenarioWorkload(scenario: Scenario): Workload {
  return {
    name: scenario.name,
    description: scenario.description,
    policy: scenario.policy,
    bucketMs: scenario.bucketMs,
    originMs: 0,
    minBuckets: Math.ceil(scenario.durationMs / scenario.bucketMs),
    open: () => openScenario(scenario),
    notes: () => [],
  };
}

/** A recorded trace file as a workload, read lazily (once per replay, as a stream). */
export function traceWorkload(
  path: string,
  policy: Policy,
  options: TraceOptions & { bucketMs?: number } = {},
): Workload {
  const label = options.label ?? path;
  let last: TraceSource | undefined;
  return {
    name: basename(label),
    description: `Recorded traffic from ${label}.`,
    policy,
    bucketMs: options.bucketMs ?? policy.windowMs,
    open: () => {
      last = new TraceSource(path, { ...options, label });
      return new TrafficStream([last]);
    },
    notes: () => {
      const stats = last?.stats;
      if (!stats || stats.skipped === 0) return [];
      return [
        `skipped ${stats.skipped} bad line${stats.skipped === 1 ? '' : 's'} of ${label} (first: ${stats.firstSkipped})`,
      ];
    },
  };
}
