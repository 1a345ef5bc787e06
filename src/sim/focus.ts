import { FocusRecorder, type ColumnGrid, type FocusRecord, type FocusSeries } from '../metrics/focus-recorder.js';
import type { Contender } from './contender.js';
import { observeLockstep, type ArrivalObserver } from './replay.js';
import { windowLimitsOf, type Workload } from './workload.js';

/** Where a comparison's focus pass looks: the key and the columns, given what the first pass found. */
export interface FocusPlan {
  key: string;
  /** Whether `key` is the worst key (the one of the highest worst window), rather than one asked for. */
  worst: boolean;
  chart?: ColumnGrid;
  strip?: ColumnGrid;
}

/** One key of a comparison, followed through every contender (see {@link followKeys}). */
export interface FocusView extends FocusPlan {
  /** Requests of the key over the run (of the first contender's stream for closed loops). */
  arrivals: number;
  /** Per contender, in row order; `oracle` only when its traffic differed from the others' (a closed loop). */
  lanes: { algorithm: string; series: FocusSeries; oracle?: FocusSeries }[];
  /** The exact oracle on the same arrivals, when all contenders saw the same ones (open loop). */
  oracle?: FocusSeries;
}

/**
 * One recorder per plan, each following the plan's key (with its grids) through `lanes`
 * lanes, judged by the exact oracle of `limits` (limit per `windowMs` ms; a composite's
 * several, all or nothing) and charted under each.
 */
export function focusRecorders(
  plans: readonly FocusPlan[],
  limits: readonly { limit: number; windowMs: number }[],
  lanes: number,
): FocusRecorder[] {
  return plans.map((plan) => new FocusRecorder({ key: plan.key, limits, chart: plan.chart, strip: plan.strip }, lanes));
}

/**
 * The view of `plan` from the record of lanes that all saw the same arrivals, so one oracle
 * judges them all: `algorithms` names the lanes, in lane order.
 */
export function sharedOracleView(plan: FocusPlan, record: FocusRecord, algorithms: readonly string[]): FocusView {
  return {
    ...plan,
    arrivals: record.arrivals,
    oracle: record.oracle,
    lanes: algorithms.map((algorithm, i) => ({ algorithm, series: record.lanes[i] as FocusSeries })),
  };
}

/**
 * A second, deterministic pass over `workload` following the key of each plan (each with
 * its own grids): a fresh stream is identical to the first pass's, so each limiter decides
 * exactly as it did then. An open-loop workload goes once through all contenders in
 * lockstep; a closed-loop one once per contender, each with its own oracle (its retries
 * differ). Each arrival goes to one recorder per plan, so five keys cost one pass, not five.
 */
export async function followKeys(
  workload: Workload,
  contenders: readonly Contender[],
  plans: readonly FocusPlan[],
): Promise<FocusView[]> {
  const limits = windowLimitsOf(workload);
  const recorders = (lanes: number) => focusRecorders(plans, limits, lanes);
  const first = workload.open();
  if (!first.closedLoop) {
    const each = recorders(contenders.length);
    await observeLockstep(contenders, first, fanOut(each), workload.policy.windowMs);
    const names = contenders.map((c) => c.name);
    return plans.map((plan, p) => sharedOracleView(plan, (each[p] as FocusRecorder).result(), names));
  }
  const records: FocusRecord[][] = [];
  for (const [i, contender] of contenders.entries()) {
    const each = recorders(1);
    await observeLockstep([contender], i === 0 ? first : workload.open(), fanOut(each), workload.policy.windowMs);
    records.push(each.map((recorder) => recorder.result()));
  }
  return plans.map((plan, p) => ({
    ...plan,
    arrivals: records[0]?.[p]?.arrivals ?? 0,
    lanes: contenders.map((c, i) => ({
      algorithm: c.name,
      series: records[i]?.[p]?.lanes[0] as FocusSeries,
      oracle: records[i]?.[p]?.oracle as FocusSeries,
    })),
  }));
}

/** One observer feeding every recorder of `recorders`, in order. */
function fanOut(recorders: readonly FocusRecorder[]): ArrivalObserver {
  if (recorders.length === 1) return recorders[0] as FocusRecorder;
  return {
    offer: (t, key, cost, id) => {
      for (const recorder of recorders) recorder.offer(t, key, cost, id);
    },
    decide: (lane, allowed) => {
      for (const recorder of recorders) recorder.decide(lane, allowed);
    },
    commit: () => {
      for (const recorder of recorders) recorder.commit();
    },
  };
}

/** The key of the highest worst window over the contenders (the first on a tie), and where that window ended. */
export function worstKey(
  worstWindows: readonly ({ key: string; endMs: number; units: number } | null)[],
): { key: string; endMs: number } | undefined {
  let best: { key: string; endMs: number; units: number } | undefined;
  for (const window of worstWindows) if (window && (!best || window.units > best.units)) best = window;
  return best && { key: best.key, endMs: best.endMs };
}

/**
 * The keys where the contenders had their worst windows, highest first (each key once, at
 * most `max`): the keys worth a look in a run of many.
 */
export function worstKeys(
  worstWindows: readonly ({ key: string; endMs: number; units: number } | null)[],
  max: number,
): string[] {
  const windows = worstWindows.filter((w): w is { key: string; endMs: number; units: number } => w !== null);
  const sorted = windows.map((w, i) => ({ w, i })).sort((a, b) => b.w.units - a.w.units || a.i - b.i);
  return [...new Set(sorted.map(({ w }) => w.key))].slice(0, max);
}

/**
 * `view` as charted under limit `i` of a composite (each series' `windows[i]` as its
 * `window`); `view` itself for the first limit, or a single one.
 */
export function underLimit(view: FocusView, i: number): FocusView {
  if (i === 0) return view;
  const at = (series: FocusSeries): FocusSeries => ({ ...series, window: series.windows?.[i] ?? series.window });
  return {
    ...view,
    lanes: view.lanes.map((lane) => ({
      ...lane,
      series: at(lane.series),
      ...(lane.oracle ? { oracle: at(lane.oracle) } : {}),
    })),
    ...(view.oracle ? { oracle: at(view.oracle) } : {}),
  };
}
