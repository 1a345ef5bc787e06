// registerOtelMetrics with the OpenTelemetry SDK as an application sets it up: a
// MeterProvider whose reader exports to the SDK's in-memory exporter, a tracer whose spans
// go to the in-memory span exporter, and the AsyncLocalStorage context manager (what makes
// a span active across awaits). The counts are the decisions made; a denial adds an event
// to the active span.
import { context, type Attributes, type Meter } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type DataPoint,
  type Histogram,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLimiter, ManualClock } from '../../src/index.js';
import { OTEL_NAMES, registerOtelMetrics, type OtelMeter } from '../../src/observability/otel.js';
import { createRedisLimiter } from '../../src/redis/redis-limiter.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';
import { expectRatelabError } from '../support/errors.js';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

/** A meter exporting to an in-memory exporter, and what it collects now: instrument name -> data points. */
function otelMetrics(): { meter: OtelMeter; collect(): Promise<Map<string, DataPoint<unknown>[]>> } {
  const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
  // Exports when told (forceFlush), never on its own during a test.
  const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 2 ** 31 - 1 });
  const provider = new MeterProvider({ readers: [reader] });
  return {
    meter: provider.getMeter('ratelab-test'),
    async collect() {
      exporter.reset();
      await reader.forceFlush();
      const found = new Map<string, DataPoint<unknown>[]>();
      for (const resource of exporter.getMetrics())
        for (const scope of resource.scopeMetrics)
          for (const metric of scope.metrics)
            found.set(metric.descriptor.name, [...(found.get(metric.descriptor.name) ?? []), ...metric.dataPoints]);
      return found;
    },
  };
}

/** The data points of `name` as `attributes -> value`, attributes as `k=v` sorted, joined by commas. */
function points(found: Map<string, DataPoint<unknown>[]>, name: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const point of found.get(name) ?? []) {
    const labels = Object.entries(point.attributes as Attributes)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',');
    out[labels] = point.value;
  }
  return out;
}

/** A tracer whose ended spans land in an in-memory exporter. */
function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  return { tracer: provider.getTracer('ratelab-test'), spans: () => exporter.getFinishedSpans() };
}

describe('registerOtelMetrics: the instruments', () => {
  it('counts each decision under its outcome (observable counter), zeros listed, as the decisions were', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('token-bucket', { limit: 2, windowMs: 1000 }, { clock, name: 'free' });
    const { meter, collect } = otelMetrics();
    registerOtelMetrics(limiter, { meter, name: 'api', spanEvents: false });
    const decisions = [limiter.consume('k'), limiter.consume('k'), limiter.consume('k'), limiter.consume('j')];
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, false, true]);
    expect(points(await collect(), OTEL_NAMES.decisions)).toEqual({
      'limiter=api,outcome=allowed,tier=free': 3,
      'limiter=api,outcome=denied,tier=free': 1,
      'limiter=api,outcome=shadow-denied,tier=free': 0,
      'limiter=api,outcome=failed-open,tier=free': 0,
      'limiter=api,outcome=failed-closed,tier=free': 0,
    });
    // Collected again: cumulative, unchanged until more decisions.
    limiter.consume('k');
    expect(points(await collect(), OTEL_NAMES.decisions)['limiter=api,outcome=denied,tier=free']).toBe(2);
  });

  it('reads live keys at collection, and records no decision time for a synchronous limiter', async () => {
    const limiter = createLimiter('gcra', { limit: 5, windowMs: 1000 }, { name: 'free' });
    const { meter, collect } = otelMetrics();
    registerOtelMetrics(limiter, { meter, name: 'api', spanEvents: false });
    for (const key of ['a', 'b', 'c']) limiter.consume(key);
    const found = await collect();
    expect(points(found, OTEL_NAMES.keys)).toEqual({ 'limiter=api,tier=free': 3 });
    expect(found.get(OTEL_NAMES.duration) ?? []).toEqual([]);
    expect(points(found, OTEL_NAMES.listenerErrors)).toEqual({ 'limiter=api,tier=free': 0 });
  });

  it('names: the Prometheus series less the suffixes OpenTelemetry adds back (_total, _seconds for unit s)', () => {
    expect(OTEL_NAMES).toEqual({
      decisions: 'ratelab_decisions',
      duration: 'ratelab_decision_duration',
      keys: 'ratelab_keys',
      breakerOpen: 'ratelab_redis_breaker_open',
      listenerErrors: 'ratelab_listener_errors',
    });
  });

  it('shares one set of instruments among the limiters of a meter; unregister removes the listener, keeps the counts', async () => {
    const free = createLimiter('fixed-window', { limit: 1, windowMs: 1000 }, { name: 'free' });
    const pro = createLimiter('fixed-window', { limit: 1, windowMs: 1000 }, { name: 'pro' });
    const { meter, collect } = otelMetrics();
    const handle = registerOtelMetrics(free, { meter, name: 'api', spanEvents: false });
    registerOtelMetrics(pro, { meter, name: 'api', spanEvents: false });
    free.consume('k');
    pro.consume('k');
    handle.unregister();
    free.consume('k');
    const counts = points(await collect(), OTEL_NAMES.decisions);
    expect(counts['limiter=api,outcome=allowed,tier=free']).toBe(1);
    expect(counts['limiter=api,outcome=denied,tier=free']).toBe(0);
    expect(counts['limiter=api,outcome=allowed,tier=pro']).toBe(1);
  });

  it('refuses bad options, naming the field', () => {
    const limiter = createLimiter('gcra', { limit: 1, windowMs: 1000 });
    const { meter } = otelMetrics();
    expectRatelabError(
      () => registerOtelMetrics(limiter, { meter: {} as OtelMeter, name: 'x' }),
      'INVALID_ARGUMENT',
      'meter',
    );
    expectRatelabError(() => registerOtelMetrics(limiter, { meter, name: '' }), 'INVALID_ARGUMENT', 'name');
    expectRatelabError(
      () => registerOtelMetrics(limiter, { meter, name: 'x', spanKey: 'yes' as unknown as boolean }),
      'INVALID_ARGUMENT',
      'spanKey',
    );
    expectRatelabError(
      () => registerOtelMetrics(limiter, { meter, name: 'x', buckets: [] }),
      'INVALID_ARGUMENT',
      'buckets',
    );
  });
});

describe('registerOtelMetrics: span events', () => {
  it('adds ratelab.denied to the active span for each denial, without the key by default', () => {
    const limiter = createLimiter(
      'token-bucket',
      { limit: 1, windowMs: 1000 },
      { name: 'free', clock: new ManualClock(0) },
    );
    const { meter } = otelMetrics();
    const { tracer, spans } = tracing();
    registerOtelMetrics(limiter, { meter, name: 'api' });
    tracer.startActiveSpan('GET /a', (span) => {
      limiter.consume('user-1');
      limiter.consume('user-1', 1);
      span.end();
    });
    limiter.consume('user-1'); // no active span: nothing to add to, nothing thrown
    const [span] = spans();
    expect(spans()).toHaveLength(1);
    expect(span?.events.map((e) => [e.name, e.attributes])).toEqual([
      [
        'ratelab.denied',
        {
          'ratelab.limiter': 'api',
          'ratelab.tier': 'free',
          'ratelab.outcome': 'denied',
          'ratelab.limit': '1s',
          'ratelab.cost': 1,
          'ratelab.retry_after_ms': 1000,
        },
      ],
    ]);
  });

  it('puts the key in with spanKey: true; marks a shadow denial as such', () => {
    const limiter = createLimiter(
      'token-bucket',
      { limit: 1, windowMs: 1000 },
      { name: 'trial', enforce: false, clock: new ManualClock(0) },
    );
    const { meter } = otelMetrics();
    const { tracer, spans } = tracing();
    registerOtelMetrics(limiter, { meter, name: 'api', spanKey: true });
    tracer.startActiveSpan('GET /a', (span) => {
      limiter.consume('user-1');
      expect(limiter.consume('user-1').allowed).toBe(true);
      span.end();
    });
    expect(spans()[0]?.events.map((e) => e.attributes)).toMatchObject([
      { 'ratelab.outcome': 'shadow-denied', 'ratelab.key': 'user-1' },
    ]);
  });
});

describeRedis('registerOtelMetrics on the Redis limiter', () => {
  const fixture = useRedisServer();
  let redis: Redis;
  beforeAll(() => {
    redis = fixture.redis;
  });

  it('records every decision time; a denial awaited in a span lands on that span', async () => {
    const limiter = createRedisLimiter(
      'gcra',
      { limit: 1, windowMs: 60_000 },
      { redis, name: 'free', prefix: 'otel:' },
    );
    const { meter, collect } = otelMetrics();
    const { tracer, spans } = tracing();
    registerOtelMetrics(limiter, { meter, name: 'api', buckets: [0.001, 1] });
    for (const request of ['first', 'second'])
      await tracer.startActiveSpan(request, async (span) => {
        await limiter.consume('k');
        span.end();
      });
    const duration = (await collect()).get(OTEL_NAMES.duration)?.[0]?.value as Histogram | undefined;
    expect(duration?.count).toBe(2);
    expect(duration?.buckets.boundaries).toEqual([0.001, 1]);
    expect(spans().map((s) => [s.name, s.events.map((e) => e.attributes?.['ratelab.outcome'])])).toEqual([
      ['first', []],
      ['second', ['denied']],
    ]);
  });
});

// Type-checked, never run: an OpenTelemetry Meter fits the structural type ratelab declares.
const _meterFits = (meter: Meter): OtelMeter => meter;
