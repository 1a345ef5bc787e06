import type { Registry } from 'prom-client';
import type { DecisionEvent, DecisionListener } from '../../src/core/decision-event.js';
import type { ObservedLimiter } from '../../src/observability/tally.js';

/**
 * A limiter's event side alone, for what the metrics do with events whatever made them
 * (malformed ones included): `emit` hands listeners whatever it is given.
 */
export class EventSource implements ObservedLimiter {
  listenerErrors = 0;
  size: number | undefined;
  name: string | undefined;
  open: string[] = [];
  private readonly listeners = new Set<DecisionListener>();

  addDecisionListener(listener: DecisionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get listening(): number {
    return this.listeners.size;
  }

  openBreakers(): readonly string[] {
    return this.open;
  }

  emit(event: unknown): void {
    for (const listener of this.listeners) listener(event as DecisionEvent);
  }
}

/** An event as a limiter named `limiter` would send it; `over` replaces any field. */
export function event(
  outcome: DecisionEvent['outcome'],
  limiter?: string,
  over: Partial<DecisionEvent> = {},
): DecisionEvent {
  const allowed = outcome === 'allowed' || outcome === 'failed-open' || outcome === 'shadow-denied';
  return {
    key: 'k',
    cost: 1,
    outcome,
    algorithm: 'token-bucket',
    limiter,
    limit: '1s',
    decision: { allowed, limit: 10, remaining: 0, retryAfterMs: allowed ? 0 : 100, resetMs: 100 },
    durationNs: undefined,
    failure: undefined,
    ...over,
  };
}

/** Every sample of `registry` whose name starts with ratelab_, as `name{label="value",...}` -> value (labels sorted). */
export async function samples(registry: Registry): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  for (const metric of await registry.getMetricsAsJSON()) {
    for (const value of metric.values as {
      metricName?: string;
      labels: Record<string, string | number>;
      value: number;
    }[]) {
      const name = value.metricName ?? metric.name;
      if (!name.startsWith('ratelab_')) continue;
      const labels = Object.entries(value.labels)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([k, v]) => `${k}="${v}"`)
        .join(',');
      found.set(`${name}{${labels}}`, value.value);
    }
  }
  return found;
}

/** The decisions counter's samples of `registry` that are not zero. */
export async function decisionCounts(registry: Registry): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const [series, value] of await samples(registry))
    if (series.startsWith('ratelab_decisions_total{') && value !== 0) counts[series] = value;
  return counts;
}
