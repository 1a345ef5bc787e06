import type * as PromClient from 'prom-client';
import { OUTCOMES } from '../core/decision-event.js';
import { invalidOption } from '../core/options.js';
import { requireOptional } from '../core/optional-dependency.js';
import {
  BREAKER_OPEN_SERIES,
  DECISION_DURATION_SERIES,
  DECISION_LABELS,
  DECISIONS_HELP,
  DECISIONS_SERIES,
  KEYS_SERIES,
  LISTENER_ERRORS_SERIES,
} from '../core/series.js';
import {
  checkBuckets,
  checkName,
  DEFAULT_DURATION_BUCKETS,
  Tally,
  type MetricsHandle,
  type ObservedLimiter,
} from './tally.js';

/**
 * A prom-client `Registry`, as far as ratelab uses one (a structural type, so these
 * declarations compile without prom-client installed; any `Registry` fits).
 */
export interface PrometheusRegistry {
  getSingleMetric(name: string): unknown;
  registerMetric(metric: never): void;
}

/** Options of {@link registerMetrics}. */
export interface PrometheusMetricsOptions {
  /** The prom-client registry to add the series to (e.g. prom-client's global `register`). */
  registry: PrometheusRegistry;
  /** The `limiter` label: which limiter (or group of them) of the application this is, e.g. `api`. */
  name: string;
  /**
   * Upper bounds of the decision-latency histogram (asynchronous limiters), in seconds,
   * ascending. Default {@link DEFAULT_DURATION_BUCKETS}. The first registration on a registry
   * fixes them; a later one giving others is refused (`INVALID_ARGUMENT`).
   */
  buckets?: readonly number[];
}

/** Where a registry's ratelab state hangs: on ratelab's own decisions counter, found by name (a second copy of ratelab finds it too). */
const TALLY = Symbol.for('ratelab.metrics.tally');

interface RegistryState {
  tally: Tally;
  histogram: PromClient.Histogram<'limiter' | 'tier'>;
  buckets: readonly number[];
}

type StateCarrier = PromClient.Counter<string> & { [TALLY]?: RegistryState };

/**
 * Counts `limiter`'s decisions in `options.registry`, as the series of src/core/series.ts:
 * - `ratelab_decisions_total{limiter, tier, outcome}`: every decision, one per outcome
 *   (all five listed for each tier, zeros included, so `rate()` has a series from the start);
 * - `ratelab_decision_duration_seconds{limiter, tier}`: the asynchronous limiters' (Redis,
 *   node:cluster) time from call to answer;
 * - `ratelab_keys{limiter, tier}`: live keys, read at scrape time (memory, shared limiters);
 * - `ratelab_redis_breaker_open{limiter, node}`: 1 while a Redis node's breaker is open;
 * - `ratelab_listener_errors_total{limiter, tier}`: the limiter's listeners that threw.
 * `limiter` is `options.name`; `tier` the limiter's own `name` option ('' without one). Keys
 * never become labels. Several limiters may share a registry (the series are created once);
 * the same limiter twice under one name is refused. Needs prom-client (`MISSING_DEPENDENCY`
 * says to install it).
 */
export function registerMetrics(limiter: ObservedLimiter, options: PrometheusMetricsOptions): MetricsHandle {
  const { registry, buckets } = checkOptions(options);
  const name = checkName(options.name);
  const state = stateOf(registry, buckets);
  const unregister = state.tally.register(limiter, name, {
    duration: (labels, seconds) => state.histogram.observe(labels, seconds),
  });
  return { unregister };
}

function checkOptions(options: PrometheusMetricsOptions): PrometheusMetricsOptions {
  if (typeof options !== 'object' || options === null)
    throw invalidOption('options', 'expected { registry, name, buckets? }', options);
  const { registry } = options;
  if (
    typeof (registry as Partial<PrometheusRegistry> | null)?.getSingleMetric !== 'function' ||
    typeof (registry as Partial<PrometheusRegistry>).registerMetric !== 'function'
  )
    throw invalidOption(
      'registry',
      "expected a prom-client Registry (new Registry(), or prom-client's register)",
      registry,
    );
  return { registry, name: options.name, buckets: checkBuckets(options.buckets) };
}

/** The registry's ratelab state: found on its decisions counter, or created with every series. */
function stateOf(registry: PrometheusRegistry, buckets: readonly number[] | undefined): RegistryState {
  const existing = registry.getSingleMetric(DECISIONS_SERIES) as StateCarrier | undefined;
  if (existing !== undefined) {
    const state = existing[TALLY];
    if (state === undefined)
      throw invalidOption(
        'registry',
        `already holds a ${DECISIONS_SERIES} that ratelab did not register`,
        DECISIONS_SERIES,
      );
    if (buckets !== undefined && !sameNumbers(buckets, state.buckets))
      throw invalidOption(
        'buckets',
        'differ from those of the histogram the first registerMetrics on this registry created (give them there)',
        buckets,
      );
    return state;
  }
  const prom = requireOptional<typeof PromClient>('prom-client', 'for Prometheus metrics', 'registry');
  const registers = [registry as unknown as PromClient.Registry];
  const tally = new Tally();
  const chosen = buckets === undefined ? DEFAULT_DURATION_BUCKETS : [...buckets];
  const decisions: StateCarrier = new prom.Counter({
    name: DECISIONS_SERIES,
    help: DECISIONS_HELP,
    labelNames: DECISION_LABELS,
    registers,
    collect() {
      this.reset();
      for (const row of tally.rows.values())
        for (let i = 0; i < OUTCOMES.length; i++)
          this.inc({ limiter: row.limiter, tier: row.tier, outcome: OUTCOMES[i] as string }, row.counts[i] as number);
    },
  });
  const histogram = new prom.Histogram({
    name: DECISION_DURATION_SERIES,
    help: 'Time from a call to its decision, seconds: asynchronous limiters (Redis, node:cluster) only.',
    labelNames: ['limiter', 'tier'] as const,
    buckets: [...chosen],
    registers,
  });
  new prom.Gauge({
    name: KEYS_SERIES,
    help: 'Live keys of an in-process limiter (memory, shared), read at scrape time.',
    labelNames: ['limiter', 'tier'] as const,
    registers,
    collect() {
      this.reset();
      for (const [row, keys] of tally.keys()) this.set({ limiter: row.limiter, tier: row.tier }, keys);
    },
  });
  new prom.Gauge({
    name: BREAKER_OPEN_SERIES,
    help: "1 while a Redis node's circuit breaker is open (its decisions go to the fail mode), else 0.",
    labelNames: ['limiter', 'node'] as const,
    registers,
    collect() {
      this.reset();
      for (const [limiter, nodes] of tally.breakers())
        for (const [node, open] of nodes) this.set({ limiter, node }, open);
    },
  });
  new prom.Counter({
    name: LISTENER_ERRORS_SERIES,
    help: "Calls of a limiter's decision listeners that threw (the decisions stood).",
    labelNames: ['limiter', 'tier'] as const,
    registers,
    collect() {
      this.reset();
      for (const [row, errors] of tally.listenerErrors()) this.inc({ limiter: row.limiter, tier: row.tier }, errors);
    },
  });
  const state: RegistryState = { tally, histogram, buckets: chosen };
  decisions[TALLY] = state;
  return state;
}

function sameNumbers(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
