import type * as OtelApi from '@opentelemetry/api';
import type { DecisionEvent } from '../core/decision-event.js';
import { OUTCOMES } from '../core/decision-event.js';
import { invalidOption } from '../core/options.js';
import { requireOptional } from '../core/optional-dependency.js';
import {
  BREAKER_OPEN_SERIES,
  DECISION_DURATION_SERIES,
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
  type SeriesLabels,
} from './tally.js';

/** Attribute values as OpenTelemetry takes them. */
export type OtelAttributes = Record<string, string | number | boolean>;

/** What an observable instrument's callback is handed. */
export interface OtelObservableResult {
  observe(value: number, attributes?: OtelAttributes): void;
}

/** An observable instrument (counter or gauge) of an OpenTelemetry meter. */
export interface OtelObservable {
  addCallback(callback: (result: OtelObservableResult) => void): void;
  removeCallback(callback: (result: OtelObservableResult) => void): void;
}

/** Options of an OpenTelemetry instrument, as far as ratelab gives them. */
export interface OtelInstrumentOptions {
  description?: string;
  unit?: string;
  advice?: { explicitBucketBoundaries?: number[] };
}

/**
 * An OpenTelemetry `Meter` (`metrics.getMeter('my-app')` of `@opentelemetry/api`), as far as
 * ratelab uses one: a structural type, so these declarations compile without the package;
 * any Meter fits.
 */
export interface OtelMeter {
  createObservableCounter(name: string, options?: OtelInstrumentOptions): OtelObservable;
  createObservableGauge(name: string, options?: OtelInstrumentOptions): OtelObservable;
  createHistogram(
    name: string,
    options?: OtelInstrumentOptions,
  ): { record(value: number, attributes?: OtelAttributes): void };
}

/** Options of {@link registerOtelMetrics}. */
export interface OtelMetricsOptions {
  /** The meter to create ratelab's instruments on (once per meter; later registrations reuse them). */
  meter: OtelMeter;
  /** The `limiter` attribute: which limiter (or group of them) of the application this is, e.g. `api`. */
  name: string;
  /** Histogram bucket bounds, seconds (advice to the SDK; its views may override). Default as Prometheus's. */
  buckets?: readonly number[];
  /**
   * Adds an event `ratelab.denied` to the active span when a request is denied (also
   * `failed-closed` and `shadow-denied`, told apart by `ratelab.outcome`). Default true.
   */
  spanEvents?: boolean;
  /**
   * Puts the decided key in the span event (`ratelab.key`). Default false: a key is often an
   * API key, a user id or an IP address, which traces (kept, shared, exported to vendors)
   * should not carry unasked. A span is one request, so a key there adds no series; it is
   * a privacy choice, not a cardinality one.
   */
  spanKey?: boolean;
}

/**
 * The OpenTelemetry names of the series: Prometheus's without the suffixes OpenTelemetry's
 * Prometheus translation adds back (`_total` for monotonic counters, `_seconds` for unit `s`).
 */
export const OTEL_NAMES = {
  decisions: DECISIONS_SERIES.replace(/_total$/, ''),
  duration: DECISION_DURATION_SERIES.replace(/_seconds$/, ''),
  keys: KEYS_SERIES,
  breakerOpen: BREAKER_OPEN_SERIES,
  listenerErrors: LISTENER_ERRORS_SERIES.replace(/_total$/, ''),
} as const;

interface MeterState {
  tally: Tally;
  histogram: { record(value: number, attributes?: OtelAttributes): void };
}

const METERS = new WeakMap<object, MeterState>();

/**
 * Counts `limiter`'s decisions as OpenTelemetry instruments on `options.meter`, the same
 * series as {@link registerMetrics} under {@link OTEL_NAMES}: observable counters of
 * decisions (attributes `limiter`, `tier`, `outcome`) and listener errors, a histogram of the
 * asynchronous limiters' decision time (seconds), observable gauges of live keys and of open
 * Redis breakers. Keys are never attributes of a metric. With `spanEvents` (default), a
 * denial adds `ratelab.denied` to the active span. Needs `@opentelemetry/api` for the span
 * events (`MISSING_DEPENDENCY` says to install it).
 */
export function registerOtelMetrics(limiter: ObservedLimiter, options: OtelMetricsOptions): MetricsHandle {
  if (typeof options !== 'object' || options === null)
    throw invalidOption('options', 'expected { meter, name, buckets?, spanEvents?, spanKey? }', options);
  const { meter } = options;
  if (
    typeof (meter as Partial<OtelMeter> | null)?.createObservableCounter !== 'function' ||
    typeof meter.createHistogram !== 'function'
  )
    throw invalidOption('meter', "expected an OpenTelemetry Meter (metrics.getMeter('my-app'))", meter);
  const name = checkName(options.name);
  const spanEvents = optionalBoolean(options.spanEvents, 'spanEvents') ?? true;
  const spanKey = optionalBoolean(options.spanKey, 'spanKey') ?? false;
  const trace = spanEvents
    ? requireOptional<typeof OtelApi>('@opentelemetry/api', 'for OpenTelemetry span events', 'meter').trace
    : undefined;
  const state = meterState(meter, checkBuckets(options.buckets));
  const unregister = state.tally.register(limiter, name, {
    duration: (labels, seconds) => state.histogram.record(seconds, { limiter: labels.limiter, tier: labels.tier }),
    denial: trace === undefined ? undefined : (labels, event) => denialEvent(trace, labels, event, spanKey),
  });
  return { unregister };
}

function denialEvent(trace: typeof OtelApi.trace, labels: SeriesLabels, event: DecisionEvent, spanKey: boolean): void {
  const span = trace.getActiveSpan();
  if (span === undefined) return;
  const attributes: OtelAttributes = {
    'ratelab.limiter': labels.limiter,
    'ratelab.tier': labels.tier,
    'ratelab.outcome': event.outcome,
  };
  if (typeof event.limit === 'string') attributes['ratelab.limit'] = event.limit;
  if (typeof event.cost === 'number') attributes['ratelab.cost'] = event.cost;
  const retry: unknown = (event.decision as Partial<DecisionEvent['decision']> | undefined)?.retryAfterMs;
  if (typeof retry === 'number') attributes['ratelab.retry_after_ms'] = retry;
  if (spanKey && typeof event.key === 'string') attributes['ratelab.key'] = event.key;
  span.addEvent('ratelab.denied', attributes);
}

function optionalBoolean(value: unknown, field: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean') throw invalidOption(field, 'expected true or false', value);
  return value;
}

/** The meter's ratelab instruments, created on its first registration. */
function meterState(meter: OtelMeter, buckets: readonly number[] | undefined): MeterState {
  const existing = METERS.get(meter);
  if (existing !== undefined) return existing;
  const tally = new Tally();
  const histogram = meter.createHistogram(OTEL_NAMES.duration, {
    description: 'Time from a call to its decision: asynchronous limiters (Redis, node:cluster) only.',
    unit: 's',
    advice: { explicitBucketBoundaries: [...(buckets ?? DEFAULT_DURATION_BUCKETS)] },
  });
  meter
    .createObservableCounter(OTEL_NAMES.decisions, {
      description: 'Rate-limit decisions, by limiter, tier and outcome.',
      unit: '{decision}',
    })
    .addCallback((result) => {
      for (const row of tally.rows.values())
        for (let i = 0; i < OUTCOMES.length; i++)
          result.observe(row.counts[i] as number, {
            limiter: row.limiter,
            tier: row.tier,
            outcome: OUTCOMES[i] as string,
          });
    });
  meter
    .createObservableGauge(OTEL_NAMES.keys, { description: 'Live keys of an in-process limiter.', unit: '{key}' })
    .addCallback((result) => {
      for (const [row, keys] of tally.keys()) result.observe(keys, { limiter: row.limiter, tier: row.tier });
    });
  meter
    .createObservableGauge(OTEL_NAMES.breakerOpen, { description: "1 while a Redis node's circuit breaker is open." })
    .addCallback((result) => {
      for (const [limiter, nodes] of tally.breakers())
        for (const [node, open] of nodes) result.observe(open, { limiter, node });
    });
  meter
    .createObservableCounter(OTEL_NAMES.listenerErrors, {
      description: "Calls of a limiter's decision listeners that threw.",
    })
    .addCallback((result) => {
      for (const [row, errors] of tally.listenerErrors())
        result.observe(errors, { limiter: row.limiter, tier: row.tier });
    });
  const state = { tally, histogram };
  METERS.set(meter, state);
  return state;
}
