import { basename } from 'node:path';
import { defaultLimitName } from '../core/limit-list.js';
import type { LimitSpec, Policy, PolicyInput } from '../core/policy.js';
import type { WindowLimit } from '../metrics/recorder.js';
import { policyHolder, type PolicyHolder, type Scenario } from '../scenario/scenario.js';
import { TrafficStream, openScenario } from '../traffic/stream.js';
import { TraceSource, type TraceOptions } from '../traffic/trace/trace-source.js';

/** Something to replay: a name, a policy, and a way to open a fresh stream of its arrivals. */
export interface Workload extends PolicyHolder {
  name: string;
  /** One line: what it shows. */
  description: string;
  /** The policy; for a composite, its first limit (see `limits`). */
  policy: Policy;
  /** A composite's limits (two or more), in order; absent for a single policy. */
  limits?: readonly LimitSpec[];
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
    ...(scenario.limits === undefined ? {} : { limits: scenario.limits }),
    ...(scenario.watched === undefined ? {} : { watched: scenario.watched }),
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
  input: PolicyInput,
  options: TraceOptions & { bucketMs?: number } = {},
): Workload {
  const label = options.label ?? path;
  const holder = policyHolder(input);
  let last: TraceSource | undefined;
  return {
    name: basename(label),
    description: `Recorded traffic from ${label}.`,
    ...holder,
    bucketMs: options.bucketMs ?? holder.policy.windowMs,
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

/** The limits a replay of `holder` enforces, named as reports name them (a single policy: one). */
export function windowLimitsOf(holder: PolicyHolder): WindowLimit[] {
  return (holder.limits ?? [holder.policy]).map(windowLimit);
}

/** The limits of `holder` only watched, less those whose name an enforced limit already has. */
export function watchedLimitsOf(holder: PolicyHolder): WindowLimit[] {
  const enforced = new Set(windowLimitsOf(holder).map((limit) => limit.name));
  return (holder.watched ?? []).map(windowLimit).filter((limit) => !enforced.has(limit.name));
}

function windowLimit(entry: LimitSpec): WindowLimit {
  return { name: entry.name ?? defaultLimitName(entry.windowMs), limit: entry.limit, windowMs: entry.windowMs };
}
