// registerMetrics on events as such, whatever limiter sends them (EventSource hands the
// listener anything, malformed events included): what each event counts, what is read at
// scrape time, how registrations share a registry. The same on real limiters:
// prometheus.test.ts.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerMetrics } from '../../src/observability/prometheus.js';
import { expectRatelabError } from '../support/errors.js';
import { decisionCounts, event, EventSource, samples } from './support.js';

const decisions = (limiter: string, tier: string, outcome: string) =>
  `ratelab_decisions_total{limiter="${limiter}",outcome="${outcome}",tier="${tier}"}`;

describe('registerMetrics: each event counted once, under its outcome', () => {
  const STEPS: [event: ReturnType<typeof event>, why: string][] = [
    [event('allowed', 'free'), 'an admission of tier free'],
    [event('allowed', 'free'), 'another: the same series, now 2'],
    [event('denied', 'free'), 'a denial: its own outcome'],
    [event('shadow-denied', 'free'), 'a denial let through in shadow: shadow-denied, not denied'],
    [event('failed-open', 'free'), 'the store failed, admitted'],
    [event('failed-closed', 'free'), 'the store failed, refused'],
    [event('allowed', 'pro'), "another tier: the event's limiter is the tier label"],
    [event('denied', undefined), "a limiter without a name: tier ''"],
  ];

  it('matches the events sent, step by step', async () => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics(source, { registry, name: 'api' });
    const want: Record<string, number> = {};
    for (const [i, [sent, why]] of STEPS.entries()) {
      source.emit(sent);
      const series = decisions('api', sent.limiter ?? '', sent.outcome);
      want[series] = (want[series] ?? 0) + 1;
      expect(await decisionCounts(registry), `step ${i + 1}: ${why}`).toEqual(want);
    }
  });

  it('lists every outcome of every tier seen, zeros included (rate() has a series from the first scrape)', async () => {
    const source = new EventSource();
    source.name = 'free';
    const registry = new Registry();
    registerMetrics(source, { registry, name: 'api' });
    const all = [...(await samples(registry)).keys()].filter((s) => s.startsWith('ratelab_decisions_total'));
    expect(all.sort()).toEqual(
      ['allowed', 'denied', 'failed-closed', 'failed-open', 'shadow-denied'].map((o) => decisions('api', 'free', o)),
    );
  });
});

describe('registerMetrics: a malformed event counts nothing and never throws', () => {
  const throwing = Object.defineProperty({}, 'outcome', {
    get() {
      throw new Error('getter');
    },
  });
  it.each([
    ['null', null],
    ['a number', 42],
    ['a string', 'denied'],
    ['no outcome', {}],
    ['an unknown outcome', { outcome: 'maybe' }],
    ['an outcome of another type', { outcome: { toString: (): string => 'denied' } }],
    ['an inherited name as outcome', { outcome: 'toString' }],
    ['a getter that throws', throwing],
  ])('%s', async (_what, sent) => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics(source, { registry, name: 'api' });
    expect(() => source.emit(sent)).not.toThrow();
    expect(await decisionCounts(registry)).toEqual({});
  });

  it('a limiter label of another type is the unnamed tier; a bad duration observes nothing', async () => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics(source, { registry, name: 'api' });
    for (const durationNs of [Number.NaN, -1, Infinity, '5' as unknown as number])
      source.emit({ ...event('allowed'), limiter: 7, durationNs });
    expect(await decisionCounts(registry)).toEqual({ [decisions('api', '', 'allowed')]: 4 });
    expect([...(await samples(registry)).keys()].filter((s) => s.includes('duration'))).toEqual([]);
  });
});

describe('registerMetrics: read at scrape time', () => {
  it('the decision time of events that carry one (asynchronous limiters), in seconds', async () => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics(source, { registry, name: 'api', buckets: [0.001, 0.01] });
    source.emit(event('allowed', 'free'));
    source.emit(event('allowed', 'free', { durationNs: 500_000 }));
    source.emit(event('denied', 'free', { durationNs: 5_000_000 }));
    const found = await samples(registry);
    const labels = 'limiter="api",tier="free"';
    expect(found.get(`ratelab_decision_duration_seconds_count{${labels}}`)).toBe(2);
    expect(found.get(`ratelab_decision_duration_seconds_sum{${labels}}`)).toBeCloseTo(0.0055, 9);
    expect(found.get(`ratelab_decision_duration_seconds_bucket{le="0.001",${labels}}`)).toBe(1);
    expect(found.get(`ratelab_decision_duration_seconds_bucket{le="0.01",${labels}}`)).toBe(2);
  });

  it("live keys: the limiter's size at each scrape; none for a limiter without size", async () => {
    const sized = new EventSource();
    sized.name = 'free';
    sized.size = 3;
    const unsized = new EventSource();
    const registry = new Registry();
    registerMetrics(sized, { registry, name: 'api' });
    registerMetrics(unsized, { registry, name: 'redis' });
    const keys = async () =>
      [...(await samples(registry))].filter(([s]) => s.startsWith('ratelab_keys{')).map(([s, v]) => `${s} ${v}`);
    expect(await keys()).toEqual(['ratelab_keys{limiter="api",tier="free"} 3']);
    sized.size = 0;
    expect(await keys()).toEqual(['ratelab_keys{limiter="api",tier="free"} 0']);
  });

  it('breakers: 1 while a node is open, 0 once it closed; a node appears from its first opening', async () => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics(source, { registry, name: 'redis' });
    const breakers = async () =>
      [...(await samples(registry))]
        .filter(([s]) => s.startsWith('ratelab_redis_breaker'))
        .map(([s, v]) => `${s} ${v}`);
    expect(await breakers()).toEqual([]);
    source.open = ['10.0.0.1:6379'];
    expect(await breakers()).toEqual(['ratelab_redis_breaker_open{limiter="redis",node="10.0.0.1:6379"} 1']);
    source.open = [];
    expect(await breakers()).toEqual(['ratelab_redis_breaker_open{limiter="redis",node="10.0.0.1:6379"} 0']);
  });

  it("listener errors: the limiter's count, kept after unregister (a counter never goes down)", async () => {
    const source = new EventSource();
    source.name = 'free';
    const registry = new Registry();
    const handle = registerMetrics(source, { registry, name: 'api' });
    const errors = async () =>
      (await samples(registry)).get('ratelab_listener_errors_total{limiter="api",tier="free"}');
    expect(await errors()).toBe(0);
    source.listenerErrors = 2;
    expect(await errors()).toBe(2);
    handle.unregister();
    source.listenerErrors = 5;
    expect(await errors()).toBe(2);
  });
});

describe('registerMetrics: registrations', () => {
  it('a second limiter on the same registry reuses the series; the same labels add up', async () => {
    const [a, b, c] = [new EventSource(), new EventSource(), new EventSource()];
    const registry = new Registry();
    registerMetrics(a, { registry, name: 'api' });
    registerMetrics(b, { registry, name: 'api' });
    registerMetrics(c, { registry, name: 'admin' });
    a.emit(event('denied', 'free'));
    b.emit(event('denied', 'free'));
    c.emit(event('denied', 'free'));
    expect(await decisionCounts(registry)).toEqual({
      [decisions('api', 'free', 'denied')]: 2,
      [decisions('admin', 'free', 'denied')]: 1,
    });
  });

  it('unregister removes the listener and keeps the counts; twice is once', async () => {
    const source = new EventSource();
    const registry = new Registry();
    const handle = registerMetrics(source, { registry, name: 'api' });
    source.emit(event('allowed', 'free'));
    handle.unregister();
    handle.unregister();
    expect(source.listening).toBe(0);
    source.emit(event('allowed', 'free'));
    expect(await decisionCounts(registry)).toEqual({ [decisions('api', 'free', 'allowed')]: 1 });
    // Registered again: counting resumes from the kept count.
    registerMetrics(source, { registry, name: 'api' });
    source.emit(event('allowed', 'free'));
    expect(await decisionCounts(registry)).toEqual({ [decisions('api', 'free', 'allowed')]: 2 });
  });

  it('refuses the same limiter twice under one name (it would count twice), and bad options, naming the field', () => {
    const source = new EventSource();
    const registry = new Registry();
    registerMetrics(source, { registry, name: 'api' });
    expectRatelabError(() => registerMetrics(source, { registry, name: 'api' }), 'INVALID_ARGUMENT', 'limiter');
    expectRatelabError(
      () => registerMetrics({} as EventSource, { registry, name: 'x' }),
      'INVALID_ARGUMENT',
      'limiter',
    );
    expectRatelabError(
      () => registerMetrics(source, { registry: {} as Registry, name: 'x' }),
      'INVALID_ARGUMENT',
      'registry',
    );
    expectRatelabError(() => registerMetrics(source, { registry, name: '' }), 'INVALID_ARGUMENT', 'name');
    expectRatelabError(
      () => registerMetrics(new EventSource(), { registry: new Registry(), name: 'x', buckets: [0.1, 0.01] }),
      'INVALID_ARGUMENT',
      'buckets',
    );
    expectRatelabError(
      () => registerMetrics(new EventSource(), { registry, name: 'x', buckets: [0.5] }),
      'INVALID_ARGUMENT',
      'buckets',
    );
  });

  it("refuses a registry whose ratelab_decisions_total is someone else's", () => {
    const registry = new Registry();
    registry.registerMetric(
      new (class {
        name = 'ratelab_decisions_total';
        get = () => Promise.resolve({ name: this.name, help: '', type: 'counter', values: [], aggregator: 'sum' });
      })() as never,
    );
    expectRatelabError(
      () => registerMetrics(new EventSource(), { registry, name: 'x' }),
      'INVALID_ARGUMENT',
      'registry',
    );
  });
});
