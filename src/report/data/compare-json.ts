import type { WorkloadComparison } from '../../sim/comparison.js';
import type { FocusSeries } from '../../metrics/focus-recorder.js';
import type { FocusView } from '../../sim/focus.js';
import { windowLimitsOf } from '../../sim/workload.js';
import { roundToPlaces } from '../round.js';
import { contenderCosts, type ContenderCosts } from '../trade-off.js';
import { JSON_FORMAT_VERSION, withErrorPercent } from './json-format.js';

/**
 * The JSON report (format {@link JSON_FORMAT_VERSION}): `rows` (one per workload x algorithm,
 * with the fields `scenario, algorithm, offered, admitted, denied, falseAdmits,
 * falseDenials, errorPercent, worstWindowRatio, fairness, bytesPerKey, opsPerSec` and a few
 * more; `labels`: per source label `{ label, offered, admitted, falseDenials, falseAdmits, wait? }`
 * (`wait`: `{ p50, p99 }` ms from wanting to admitted, retry clients only),
 * empty when no source has one; for a composite `limits`: per limit `{ name, limit, windowMs,
 * ratio, worstWindow, watched? }`, its own worst window), `contenders` (per contender its medians over the
 * workloads, see {@link contenderJson}), `scenarios` (name,
 * description, policy (a composite's first limit), a composite's `limits` and `watched`, the one-line summary, notes) and `timelines` (offered and admitted
 * units per bucket for each row), and `focus` when a key was followed (see {@link focusJson}). Measured figures not taken are null. `extra` adds
 * top-level sections (`ratelab attack` adds `attack`).
 */
export function comparisonJson(
  results: readonly WorkloadComparison[],
  summaries: readonly string[],
  extra: Record<string, unknown> = {},
): string {
  const report = {
    version: JSON_FORMAT_VERSION,
    ...extra,
    scenarios: results.map((result, i) => ({
      name: result.name,
      description: result.description,
      policy: result.policy,
      ...(result.limits === undefined ? {} : { limits: result.limits }),
      ...(result.watched === undefined ? {} : { watched: result.watched }),
      summary: summaries[i],
      notes: result.notes,
    })),
    contenders: contenderCosts(results).map(contenderJson),
    rows: results.flatMap((result) =>
      result.rows.map((row, j) => ({
        ...withErrorPercent(row),
        worstWindowRatio: roundToPlaces(row.worstWindowRatio, 6),
        fairness: row.fairness === null ? null : roundToPlaces(row.fairness, 6),
        bytesPerKey: row.bytesPerKey === null ? null : roundToPlaces(row.bytesPerKey, 1),
        opsPerSec: row.opsPerSec === null ? null : Math.round(row.opsPerSec),
        speedRatio: row.speedRatio === null ? null : roundToPlaces(row.speedRatio, 3),
        worstWindow: result.worstWindows[j] ?? null,
        labels: row.labels ?? [],
        ...(row.limits === undefined
          ? {}
          : { limits: row.limits.map((limit) => ({ ...limit, ratio: roundToPlaces(limit.ratio, 6) })) }),
      })),
    ),
    timelines: results.flatMap((result) =>
      result.timelines.map(({ algorithm, timeline }) => ({ scenario: result.name, algorithm, ...timeline })),
    ),
    ...focusSection(results),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * One contender's medians over the workloads it ran on (what the trade-off bars and scatter
 * draw): `contender, workloads, errorPercent, worstWindowRatio, bytesPerKey, speedRatio`,
 * rounded as the rows' figures are; the measured ones null when not measured.
 */
function contenderJson(costs: ContenderCosts): Record<string, unknown> {
  return {
    contender: costs.contender,
    workloads: costs.workloads,
    errorPercent: roundToPlaces(costs.errorPercent, 6),
    worstWindowRatio: roundToPlaces(costs.worstWindowRatio, 6),
    bytesPerKey: costs.bytesPerKey === null ? null : roundToPlaces(costs.bytesPerKey, 1),
    speedRatio: costs.speedRatio === null ? null : roundToPlaces(costs.speedRatio, 3),
  };
}

/** `focus`: per workload with a followed key, that key's series (and strip cells with --strip). */
function focusSection(results: readonly WorkloadComparison[]): { focus?: unknown[] } {
  const followed = results.filter((result) => result.focus !== undefined);
  return followed.length === 0
    ? {}
    : {
        focus: followed.map((result) =>
          focusJson(
            result.name,
            result.focus as FocusView,
            windowLimitsOf(result).map((limit) => limit.name),
          ),
        ),
      };
}

/**
 * One followed key: `key`, `worst`, `arrivals`, the `chart` grid (fromMs, widthMs, count)
 * with per algorithm `window` (per column, the most admitted in a trailing window as a
 * ratio of the limit; for a composite, of its first limit, and `limits`: each limit's
 * `name` and `window` the same under it) and, with a strip, the `strip` grid with per-cell
 * `admitted` and `denied` request counts; `exact` is the exact oracle's (per algorithm in a
 * closed loop). `names` are the limits' names, in order.
 */
function focusJson(scenario: string, view: FocusView, names: readonly string[]): Record<string, unknown> {
  const ratios = (window: readonly number[]) => window.map((x) => roundToPlaces(x, 6));
  const series = (s: FocusSeries) => ({
    window: ratios(s.window),
    ...(s.windows ? { limits: s.windows.map((window, i) => ({ name: names[i], window: ratios(window) })) } : {}),
    ...(view.strip ? { admitted: s.admitted, denied: s.denied } : {}),
  });
  return {
    scenario,
    key: view.key,
    worst: view.worst,
    arrivals: view.arrivals,
    chart: view.chart ?? null,
    strip: view.strip ?? null,
    algorithms: view.lanes.map((lane) => ({
      algorithm: lane.algorithm,
      ...series(lane.series),
      ...(lane.oracle ? { exact: series(lane.oracle) } : {}),
    })),
    ...(view.oracle ? { exact: series(view.oracle) } : {}),
  };
}
