import { describe, expect, it } from 'vitest';
import type { KeySpec, RetrySourceSpec, Scenario, SourceSpec } from '../../src/scenario/scenario.js';
import type { Arrival } from '../../src/traffic/arrival.js';
import { Random } from '../../src/traffic/random.js';
import { TrafficStream, createSource, openScenario } from '../../src/traffic/stream.js';

const ONE_KEY: KeySpec = { count: 1, prefix: 'k', pick: 'round-robin', exponent: 1 };

function drain(stream: TrafficStream, react?: (a: Arrival) => [boolean, number]): Arrival[] {
  const out: Arrival[] = [];
  for (let a = stream.next(); a; a = stream.next()) {
    out.push(a);
    if (react) stream.react(...react(a));
  }
  return out;
}

function scenarioOf(sources: SourceSpec[], durationMs = 10_000, seed = 1): Scenario {
  return {
    name: 't',
    description: 't',
    policy: { limit: 10, windowMs: 1000 },
    durationMs,
    seed,
    bucketMs: 100,
    sources,
    file: 't',
  };
}

describe('traffic sources', () => {
  it('steady: evenly spaced whole-ms times, exactly rate x duration arrivals', () => {
    const times = drain(
      openScenario(
        scenarioOf([{ kind: 'steady', keys: ONE_KEY, cost: 1, startMs: 0, endMs: 1000, ratePerMs: 3 / 1000 }]),
      ),
    ).map((a) => a.t);
    expect(times).toEqual([0, 333, 666]);
  });

  it('poisson: the seeded count is near rate x duration and times never decrease', () => {
    const arrivals = drain(
      openScenario(
        scenarioOf([{ kind: 'poisson', keys: ONE_KEY, cost: 1, startMs: 0, endMs: 100_000, ratePerMs: 0.1 }], 100_000),
      ),
    );
    expect(arrivals.length).toBeGreaterThan(9_500);
    expect(arrivals.length).toBeLessThan(10_500);
    expect(arrivals.every((a, i) => i === 0 || a.t >= (arrivals[i - 1] as Arrival).t)).toBe(true);
  });

  it('burst: count arrivals spread over `spread`, repeated `times` times', () => {
    const times = drain(
      openScenario(
        scenarioOf([
          { kind: 'burst', keys: ONE_KEY, cost: 2, atMs: 100, count: 4, spreadMs: 8, everyMs: 1000, times: 2 },
        ]),
      ),
    ).map((a) => a.t);
    expect(times).toEqual([100, 102, 104, 106, 1100, 1102, 1104, 1106]);
  });

  it('onoff: quiet gaps of at least the off minimum between floods', () => {
    const spec: SourceSpec = {
      kind: 'onoff',
      keys: ONE_KEY,
      cost: 1,
      startMs: 0,
      endMs: 60_000,
      ratePerMs: 1,
      on: { alpha: 1.5, minMs: 100 },
      off: { alpha: 1.2, minMs: 400 },
    };
    const times = drain(openScenario(scenarioOf([spec], 60_000))).map((a) => a.t);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps.filter((gap) => gap >= 400).length).toBeGreaterThan(5);
    expect(times.length).toBeLessThan(60_000 * 0.6);
  });

  it('zipf keys: the first key is picked most, about 1/H(n) of the time', () => {
    const keys: KeySpec = { count: 1000, prefix: 'u', pick: 'zipf', exponent: 1 };
    const arrivals = drain(
      openScenario(scenarioOf([{ kind: 'steady', keys, cost: 1, startMs: 0, endMs: 10_000, ratePerMs: 2 }])),
    );
    const hits = new Map<string, number>();
    for (const a of arrivals) hits.set(a.key, (hits.get(a.key) ?? 0) + 1);
    const share = (hits.get('u0') ?? 0) / arrivals.length;
    expect(share).toBeGreaterThan(0.12);
    expect(share).toBeLessThan(0.15); // 1 / H(1000) = 0.1336
    expect(hits.get('u0') ?? 0).toBeGreaterThan((hits.get('u9') ?? 0) * 5);
  });

  it('merges sources by time, ties to the source listed first', () => {
    const a: SourceSpec = {
      kind: 'burst',
      keys: { ...ONE_KEY, prefix: 'a' },
      cost: 1,
      atMs: 5,
      count: 1,
      spreadMs: 0,
      everyMs: 10,
      times: 2,
    };
    const b: SourceSpec = {
      kind: 'burst',
      keys: { ...ONE_KEY, prefix: 'b' },
      cost: 1,
      atMs: 0,
      count: 1,
      spreadMs: 0,
      everyMs: 5,
      times: 3,
    };
    expect(drain(openScenario(scenarioOf([a, b]))).map((x) => `${x.t}${x.key}`)).toEqual([
      '0b',
      '5a',
      '5b',
      '10b',
      '15a',
    ]);
  });

  it('numbers keys densely per stream, the same number for the same name across sources', () => {
    const a: SourceSpec = {
      kind: 'steady',
      keys: { count: 3, prefix: 'u', pick: 'round-robin', exponent: 1 },
      cost: 1,
      startMs: 0,
      endMs: 10,
      ratePerMs: 1,
    };
    const b: SourceSpec = {
      kind: 'burst',
      keys: { ...ONE_KEY, prefix: 'u1' },
      cost: 1,
      atMs: 0,
      count: 1,
      spreadMs: 0,
      everyMs: 10,
      times: 1,
    };
    const arrivals = drain(openScenario(scenarioOf([a, b], 4)));
    expect(arrivals.map((x) => `${x.key}=${x.id}`)).toEqual(['u0=0', 'u1=1', 'u1=1', 'u2=2', 'u0=0']);
  });

  it('the same seed gives the same arrivals; another seed does not', () => {
    const spec: SourceSpec = {
      kind: 'poisson',
      keys: { count: 50, prefix: 'u', pick: 'uniform', exponent: 1 },
      cost: 1,
      startMs: 0,
      endMs: 5000,
      ratePerMs: 0.5,
    };
    const run = (seed: number) => drain(openScenario(scenarioOf([spec], 5000, seed)));
    expect(run(7)).toEqual(run(7));
    expect(run(8)).not.toEqual(run(7));
  });
});

describe('retry clients (closed loop)', () => {
  const storm = (jitter: number): RetrySourceSpec => ({
    kind: 'retry',
    keys: ONE_KEY,
    cost: 1,
    startMs: 0,
    endMs: 5000,
    clients: 20,
    rampMs: 0,
    thinkMs: 1000,
    jitter,
    maxRetries: 3,
  });

  it('send every client once, then retry each denied one after its Retry-After', () => {
    const source = createSource(storm(0), new Random(1));
    const stream = new TrafficStream([source], 5000);
    const first = drain(stream, (a) => (a.t === 0 ? [false, 250] : [true, 0]));
    const times = first.map((a) => a.t);
    expect(times.filter((t) => t === 0)).toHaveLength(20);
    expect(times.filter((t) => t === 250)).toHaveLength(20); // the whole herd comes back at once
    expect(times.filter((t) => t === 1250)).toHaveLength(20); // then thinks 1 s after its admission
  });

  it('with jitter, retries spread over [Retry-After, (1 + jitter) x Retry-After]', () => {
    const stream = new TrafficStream([createSource(storm(1), new Random(1))], 5000);
    const retries = drain(stream, (a) => (a.t === 0 ? [false, 250] : [true, 0])).filter((a) => a.t > 0 && a.t < 1000);
    expect(retries).toHaveLength(20);
    expect(Math.min(...retries.map((a) => a.t))).toBeGreaterThanOrEqual(250);
    expect(Math.max(...retries.map((a) => a.t))).toBeLessThanOrEqual(500);
    expect(new Set(retries.map((a) => a.t)).size).toBeGreaterThan(10);
  });

  it('give up after maxRetries and after a Retry-After of Infinity', () => {
    const stream = new TrafficStream([createSource({ ...storm(0), clients: 1 }, new Random(1))], 5000);
    const always = drain(stream, () => [false, 100]).map((a) => a.t);
    expect(always.slice(0, 5)).toEqual([0, 100, 200, 300, 1300]);
    const never = drain(new TrafficStream([createSource({ ...storm(0), clients: 1 }, new Random(1))], 5000), () => [
      false,
      Infinity,
    ]).map((a) => a.t);
    expect(never).toEqual([0, 1000, 2000, 3000, 4000]);
  });
});
