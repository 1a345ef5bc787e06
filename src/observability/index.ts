// `ratelab/metrics`: a limiter's decisions as Prometheus series (prom-client) or
// OpenTelemetry instruments (@opentelemetry/api), both optional peer dependencies loaded
// only when a function here is first called, so importing this entry loads no package
// (and `ratelab` itself never loads this). The series and their labels: src/core/series.ts,
// docs/observability.md.

/** Counts a limiter's decisions in a prom-client registry: `registerMetrics(limiter, { registry, name, buckets? })`. */
export { registerMetrics } from './prometheus.js';
/** registerMetrics' options and the structural prom-client registry it takes. */
export type { PrometheusMetricsOptions, PrometheusRegistry } from './prometheus.js';
/** The same series as OpenTelemetry instruments, and a span event per denial: `registerOtelMetrics(limiter, { meter, name })`. */
export { registerOtelMetrics, OTEL_NAMES } from './otel.js';
/** registerOtelMetrics' options and the structural meter types it takes. */
export type {
  OtelAttributes,
  OtelInstrumentOptions,
  OtelMeter,
  OtelMetricsOptions,
  OtelObservable,
  OtelObservableResult,
} from './otel.js';
/** What both return (`unregister()`), the limiter they read, and the default latency buckets (seconds). */
export { DEFAULT_DURATION_BUCKETS } from './tally.js';
/** The handle (`unregister()`) and the limiter as the metrics read it (events; `size`, `name`, `openBreakers()` when it has them). */
export type { MetricsHandle, ObservedLimiter } from './tally.js';
/** The series' names and the decisions' labels, as every writer of them uses. */
export {
  BREAKER_OPEN_SERIES,
  DECISION_DURATION_SERIES,
  DECISION_LABELS,
  DECISIONS_SERIES,
  KEYS_SERIES,
  LISTENER_ERRORS_SERIES,
} from '../core/series.js';
/** The five outcomes, the `outcome` label's values. */
export { OUTCOMES } from '../core/decision-event.js';
/** An outcome, and the events, listeners and counters the limiters offer (`addDecisionListener`, `addOutcomeCounter`). */
export type {
  DecisionEvent,
  DecisionListener,
  DecisionSource,
  Outcome,
  OutcomeCounter,
} from '../core/decision-event.js';
