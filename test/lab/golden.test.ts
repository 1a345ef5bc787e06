import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, type Algorithm, type Policy } from '../../src/core/policy.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { builtinContender } from '../../src/sim/contender.js';
import { replay } from '../../src/sim/replay.js';
import { scenarioWorkload } from '../../src/sim/workload.js';
import type { Arrival, TrafficSource } from '../../src/traffic/arrival.js';
import { TrafficStream } from '../../src/traffic/stream.js';
import type { ReplayMetrics } from '../../src/metrics/recorder.js';

const SCENARIOS = new Map(builtinScenarios().map((s) => [s.name, s]));

async function run(scenario: Scenario, algorithm: Algorithm): Promise<ReplayMetrics> {
  const workload = scenarioWorkload(scenario);
  const { limit, windowMs } = scenario.policy;
  return (
    await replay(builtinContender(algorithm, scenario.policy), workload.open(), {
      limit,
      windowMs,
      bucketMs: workload.bucketMs,
      originMs: 0,
      minBuckets: workload.minBuckets,
    })
  ).metrics;
}

function scenario(name: string): Scenario {
  const found = SCENARIOS.get(name);
  if (!found) throw new Error(`no built-in ${name}`);
  return found;
}

describe('golden results of the built-in scenarios', () => {
  it('edge attack: the fixed window admits ~2x in one window; the sliding log exactly the limit, with no errors', async () => {
    const edge = scenario('edge-attack');
    const fixed = await run(edge, 'fixed-window');
    expect(fixed.worstWindowRatio).toBeGreaterThanOrEqual(1.9);
    expect(fixed.worstWindowRatio).toBeLessThanOrEqual(2.0);
    const log = await run(edge, 'sliding-log');
    expect(log.worstWindowRatio).toBeLessThanOrEqual(1.0);
    expect(log.falseAdmits + log.falseDenials).toBe(0);
  });

  it('sliding-counter worst case: the counter admits well above the limit in one window', async () => {
    const counter = await run(scenario('sliding-counter-worst'), 'sliding-counter');
    expect(counter.worstWindowRatio).toBeGreaterThan(1.8);
  });

  it.each([...SCENARIOS.keys()])(
    '%s: token bucket and GCRA agree; the sliding log matches the oracle',
    async (name) => {
      const s = scenario(name);
      const bucket = await run(s, 'token-bucket');
      const gcra = await run(s, 'gcra');
      expect(gcra).toEqual(bucket);
      const log = await run(s, 'sliding-log');
      expect([log.falseAdmits, log.falseDenials, log.worstWindowRatio <= 1]).toEqual([0, 0, true]);
    },
  );

  it('the same seed gives identical decision columns twice; another seed changes them', async () => {
    const poisson = scenario('poisson');
    const twice = await Promise.all([run(poisson, 'sliding-counter'), run(poisson, 'sliding-counter')]);
    expect(twice[0]).toEqual(twice[1]);
    const storm = scenario('retry-storm-jitter');
    expect(await run(storm, 'fixed-window')).toEqual(await run(storm, 'fixed-window'));
    expect(await run({ ...poisson, seed: poisson.seed + 1 }, 'sliding-counter')).not.toEqual(twice[0]);
  });

  it('closed loop: jitter changes what each algorithm is offered', async () => {
    const plain = await run(scenario('retry-storm'), 'sliding-log');
    const jittered = await run(scenario('retry-storm-jitter'), 'sliding-log');
    expect(plain.offered).not.toBe(jittered.offered);
  });
});

/** A source over a fixed list of arrivals (sorted by time). */
function listSource(arrivals: Arrival[]): TrafficSource {
  let i = 0;
  return { peek: () => arrivals[i]?.t ?? Infinity, take: () => arrivals[i++] as Arrival };
}

const arrivalsArb = fc
  .array(fc.record({ gap: fc.nat(40), key: fc.constantFrom('a', 'b', 'c'), cost: fc.integer({ min: 1, max: 3 }) }), {
    maxLength: 300,
  })
  .map((steps) => {
    let t = 0;
    return steps.map(({ gap, key, cost }) => ({ t: (t += gap), key, cost }));
  });
const policyArb = fc.record({
  limit: fc.integer({ min: 1, max: 8 }),
  windowMs: fc.integer({ min: 1, max: 200 }),
  burst: fc.integer({ min: 1, max: 8 }),
});

async function replayList(algorithm: Algorithm, policy: Policy, arrivals: Arrival[]): Promise<ReplayMetrics> {
  const stream = new TrafficStream([listSource(arrivals)]);
  return (
    await replay(builtinContender(algorithm, policy), stream, {
      limit: policy.limit,
      windowMs: policy.windowMs,
      bucketMs: 10,
    })
  ).metrics;
}

describe('properties against the exact oracle', () => {
  it('the sliding log decides exactly as the oracle on any stream (costs included)', async () => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, policyArb, async (arrivals, { limit, windowMs }) => {
        const m = await replayList('sliding-log', { limit, windowMs }, arrivals);
        expect([m.falseAdmits, m.falseDenials]).toEqual([0, 0]);
        expect(m.worstWindowRatio).toBeLessThanOrEqual(1);
      }),
      { numRuns: 200 },
    );
  });

  it('the token bucket never admits more than capacity + limit in one window (sch_tbf bound)', async () => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, policyArb, async (arrivals, policy) => {
        const m = await replayList('token-bucket', policy, arrivals);
        expect(m.worstWindowRatio * policy.limit).toBeLessThanOrEqual(policy.burst + policy.limit);
      }),
      { numRuns: 200 },
    );
  });

  it('token bucket and GCRA make the same decisions on unit costs', async () => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, policyArb, async (arrivals, policy) => {
        const unit = arrivals.map((a) => ({ ...a, cost: 1 }));
        expect(await replayList('gcra', policy, unit)).toEqual(await replayList('token-bucket', policy, unit));
      }),
      { numRuns: 200 },
    );
  });

  it.each(ALGORITHMS)('%s: offered = admitted + denied and admitted = the timeline sum', async (algorithm) => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, policyArb, async (arrivals, policy) => {
        const m = await replayList(algorithm, policy, arrivals);
        expect(m.offered).toBe(arrivals.length);
        expect(m.admitted + m.denied).toBe(m.offered);
        expect(m.timeline.offered.reduce((a, b) => a + b, 0)).toBe(arrivals.reduce((a, b) => a + b.cost, 0));
      }),
      { numRuns: 50 },
    );
  });
});
