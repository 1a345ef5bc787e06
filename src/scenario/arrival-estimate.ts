import { formatDuration } from '../core/duration.js';
import { RatelabError } from '../core/errors.js';
import type { ParetoSpec, Scenario, SourceSpec } from './scenario.js';

/**
 * Most arrivals a scenario may make unless raised (`--max-arrivals`): about what
 * `ratelab compare --no-measure` replays through all five algorithms in a minute on a
 * 2-core machine (measured in docs/lab.md, "Bounds"). A scenario past it is refused
 * before it runs, rather than running for hours (`rate: 1000000000/ms` over 10 s of scenario
 * time is 1e13 arrivals).
 */
export const DEFAULT_MAX_ARRIVALS = 20_000_000;

/** What one source of a scenario makes, estimated from its spec before anything runs. */
export interface SourceEstimate {
  /** The source's place in the file: `sources[0]`. */
  field: string;
  /** Arrivals (expected, or at most for a closed loop), plus the on/off periods an onoff source draws. */
  arrivals: number;
  /** How the figure comes about, for the message: `steady, 1000000000/ms for 10s`. */
  how: string;
}

/**
 * Every source's arrivals, from the traffic model: a steady source makes exactly
 * `rate x span`, a Poisson one that many on average, an onoff one that times the share of
 * time it is on (Pareto means `alpha x min / (alpha - 1)`) plus one draw per on/off
 * period, a burst `count x bursts` within the duration; a retry source depends on the
 * limiter's answers, so its figure is the most it can make: each client at most one
 * arrival per ms, and `maxRetries + 1` per request of which it starts one per `think`; a
 * self-throttled one no more than its throttle admits per key.
 */
export function estimateArrivals(scenario: Scenario): SourceEstimate[] {
  return scenario.sources.map((spec, i) => ({ field: `sources[${i}]`, ...sourceArrivals(spec, scenario.durationMs) }));
}

/**
 * Refuses a scenario whose sources make more than `cap` arrivals in all, with
 * `TOO_MANY_ARRIVALS` naming the file, the largest source and the figures.
 */
export function checkArrivalCap(scenario: Scenario, cap: number, flag = '--max-arrivals'): void {
  const sources = estimateArrivals(scenario);
  const total = sources.reduce((sum, source) => sum + source.arrivals, 0);
  if (total <= cap) return;
  const largest = sources.reduce((a, b) => (b.arrivals > a.arrivals ? b : a));
  const all = sources.length > 1 ? `, ${formatCount(total)} for the whole scenario` : '';
  throw new RatelabError(
    'TOO_MANY_ARRIVALS',
    `${scenario.file}: ${largest.field} (${largest.how}) would make ${formatCount(largest.arrivals)} arrivals${all}: above the cap of ${formatCount(cap)} per scenario (${flag} N raises it)`,
    { field: `${scenario.file}: ${largest.field}` },
  );
}

function sourceArrivals(spec: SourceSpec, durationMs: number): { arrivals: number; how: string } {
  const spanMs = 'startMs' in spec ? Math.max(0, Math.min(spec.endMs, durationMs) - spec.startMs) : 0;
  const over = `for ${formatDuration(spanMs)}`;
  switch (spec.kind) {
    case 'steady':
      return { arrivals: Math.ceil(spanMs * spec.ratePerMs), how: `steady, ${formatRate(spec.ratePerMs)} ${over}` };
    case 'poisson':
      return {
        arrivals: Math.round(spanMs * spec.ratePerMs),
        how: `poisson, about ${formatRate(spec.ratePerMs)} ${over}`,
      };
    case 'onoff': {
      const on = paretoMean(spec.on);
      const periods = spanMs / (on + paretoMean(spec.off));
      const share = on / (on + paretoMean(spec.off));
      return {
        arrivals: Math.round(spanMs * spec.ratePerMs * share + periods),
        how: `onoff, ${formatRate(spec.ratePerMs)} while on (${(share * 100).toPrecision(2)}% of the time) ${over}, with ${formatCount(periods)} on/off periods`,
      };
    }
    case 'burst': {
      const fits = Math.max(0, Math.floor((durationMs - 1 - spec.atMs) / spec.everyMs) + 1);
      const bursts = Math.min(spec.times, fits);
      return {
        arrivals: spec.count * bursts,
        how: `burst, ${formatCount(spec.count)} x ${formatCount(bursts)} bursts`,
      };
    }
    case 'retry': {
      const perClient = Math.min(spanMs, Math.ceil(spanMs / spec.thinkMs) * (spec.maxRetries + 1));
      const unthrottled = spec.clients * perClient;
      if (spec.throttle === undefined)
        return {
          arrivals: unthrottled,
          how: `retry, up to ${formatCount(perClient)} per client x ${formatCount(spec.clients)} clients ${over}`,
        };
      // Self-throttled clients send only what their throttle admits: `limit` units per
      // window per key, retries included (they go through the throttle again).
      const perKey = Math.floor((spec.throttle.limit / spec.cost) * (Math.ceil(spanMs / spec.throttle.windowMs) + 1));
      const arrivals = Math.min(unthrottled, spec.keys.count * perKey);
      return {
        arrivals,
        how: `retry through a throttle, up to ${formatCount(perKey)} per key x ${formatCount(spec.keys.count)} keys ${over}`,
      };
    }
  }
}

/** Mean of a Pareto period (`alpha > 1` always: the schema takes 1.01 and up). */
function paretoMean(spec: ParetoSpec): number {
  return (spec.alpha * spec.minMs) / (spec.alpha - 1);
}

/** A rate in requests per ms, or per s below one per ms. */
function formatRate(perMs: number): string {
  return perMs >= 1 ? `${+perMs.toPrecision(6)}/ms` : `${+(perMs * 1000).toPrecision(6)}/s`;
}

/** A count with thousands separators, or in exponent form past 1e15. */
function formatCount(n: number): string {
  if (!Number.isFinite(n) || n >= 1e15) return n.toExponential(2);
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
