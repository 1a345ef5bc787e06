// The names of ratelab's metric series, one list for every place that writes them: the
// `ratelab/metrics` entry (Prometheus, OpenTelemetry), `ratelab serve --metrics` and the
// lab's Prometheus text (`compare --prom`), so a dashboard built on one reads the others.
// Keys are never a label: label values come from a bounded set (limiter and tier names,
// outcomes, Redis nodes).

/** Counter: decisions, by `limiter`, `tier` and `outcome` (an `Outcome`, src/core/decision-event.ts). */
export const DECISIONS_SERIES = 'ratelab_decisions_total';
/** The HELP text of {@link DECISIONS_SERIES}, the same wherever it is written (serve's /metrics, `compare --prom`). */
export const DECISIONS_HELP =
  'Rate-limit decisions, by limiter, tier and outcome (allowed, denied, shadow-denied, failed-open, failed-closed).';
/** Histogram, seconds: from a call to its answer, asynchronous limiters only (Redis, node:cluster), by `limiter`, `tier`. */
export const DECISION_DURATION_SERIES = 'ratelab_decision_duration_seconds';
/** Gauge: live keys of an in-process limiter (memory, shared), by `limiter`, `tier`. */
export const KEYS_SERIES = 'ratelab_keys';
/** Gauge: 1 while a Redis node's circuit breaker is open (decisions go to the fail mode), else 0; by `limiter`, `node`. */
export const BREAKER_OPEN_SERIES = 'ratelab_redis_breaker_open';
/** Counter: calls of decision listeners that threw, by `limiter`, `tier`. */
export const LISTENER_ERRORS_SERIES = 'ratelab_listener_errors_total';

/** The labels of {@link DECISIONS_SERIES}, in order. */
export const DECISION_LABELS = ['limiter', 'tier', 'outcome'] as const;
