import { FocusRecorder, type ColumnGrid, type FocusRecord, type FocusSeries } from '../metrics/focus-recorder.js';
import type { Contender } from './contender.js';
import { observeLockstep } from './replay.js';
import type { Workload } from './workload.js';

/** Where a comparison's focus pass looks: the key and the columns, given what the first pass found. */
export interface FocusPlan {
  key: string;
  /** Whether `key` is the worst key (the one of the highest worst window), rather than one asked for. */
  worst: boolean;
  chart?: ColumnGrid;
  strip?: ColumnGrid;
}

/** One key of a comparison, followed through every contender (see {@link followKey}). */
export interface FocusView extends FocusPlan {
  /** Requests of the key over the run (of the first contender's stream for closed loops). */
  arrivals: number;
  /** Per contender, in row order; `oracle` only when its traffic differed from the others' (a closed loop). */
  lanes: { algorithm: string; series: FocusSeries; oracle?: FocusSeries }[];
  /** The exact oracle on the same arrivals, when all contenders saw the same ones (open loop). */
  oracle?: FocusSeries;
}

/**
 * A second, deterministic pass over `workload` following the key of `plan`: a fresh
 * stream is identical to the first pass's, so each limiter decides exactly as it did then.
 * An open-loop workload goes once through all contenders in lockstep; a closed-loop one
 * once per contender, each with its own oracle (its retries differ).
 */
export async function followKey(workload: Workload, contenders: readonly Contender[], plan: FocusPlan): Promise<FocusView> {
  const options = { key: plan.key, limit: workload.policy.limit, windowMs: workload.policy.windowMs, chart: plan.chart, strip: plan.strip };
  const first = workload.open();
  if (!first.closedLoop) {
    const recorder = new FocusRecorder(options, contenders.length);
    await observeLockstep(contenders, first, recorder, workload.policy.windowMs);
    const record = recorder.result();
    return { ...plan, arrivals: record.arrivals, oracle: record.oracle, lanes: contenders.map((c, i) => ({ algorithm: c.name, series: record.lanes[i] as FocusSeries })) };
  }
  const records: FocusRecord[] = [];
  for (const [i, contender] of contenders.entries()) {
    const recorder = new FocusRecorder(options, 1);
    await observeLockstep([contender], i === 0 ? first : workload.open(), recorder, workload.policy.windowMs);
    records.push(recorder.result());
  }
  return {
    ...plan,
    arrivals: records[0]?.arrivals ?? 0,
    lanes: contenders.map((c, i) => ({ algorithm: c.name, series: records[i]?.lanes[0] as FocusSeries, oracle: records[i]?.oracle as FocusSeries })),
  };
}

/** The key of the highest worst window over the contenders (the first on a tie), and where that window ended. */
export function worstKey(worstWindows: readonly ({ key: string; endMs: number; units: number } | null)[]): { key: string; endMs: number } | undefined {
  let best: { key: string; endMs: number; units: number } | undefined;
  for (const window of worstWindows) if (window && (!best || window.units > best.units)) best = window;
  return best && { key: best.key, endMs: best.endMs };
}
