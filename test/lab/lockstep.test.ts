import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../../src/core/clock.js';
import { RatelabError } from '../../src/core/errors.js';
import { ALGORITHMS, type Policy } from '../../src/core/policy.js';
import { createLimiter } from '../../src/memory/limiter.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';
import { builtinContender, type Contender } from '../../src/sim/contender.js';
import { replay, replayLockstep, type ReplayOptions } from '../../src/sim/replay.js';
import { scenarioWorkload } from '../../src/sim/workload.js';
import type { Arrival, TrafficSource } from '../../src/traffic/arrival.js';
import { TrafficStream } from '../../src/traffic/stream.js';

function listSource(arrivals: Arrival[]): TrafficSource {
  let i = 0;
  return { peek: () => arrivals[i]?.t ?? Infinity, take: () => arrivals[i++] as Arrival };
}

/**
 * A user-style limiter (a fixed window per key, reading only `clock`) that answers with a
 * Promise on every `promiseEvery`-th call and with a plain object otherwise.
 */
function mixedContender(policy: Policy, promiseEvery: number): Contender {
  return {
    name: `mixed-${promiseEvery}`,
    probe: { algorithm: 'fixed-window', policy },
    stateBytesPerKey: undefined,
    create(clock: Clock) {
      const windows = new Map<string, { start: number; used: number }>();
      let calls = 0;
      return {
        consume(key: string, cost: number) {
          const now = clock();
          const start = Math.floor(now / policy.windowMs) * policy.windowMs;
          const window = windows.get(key);
          const used = window?.start === start ? window.used : 0;
          const allowed = used + cost <= policy.limit;
          windows.set(key, { start, used: allowed ? used + cost : used });
          calls += 1;
          return calls % promiseEvery === 0 ? Promise.resolve({ allowed }) : allowed;
        },
      };
    },
  };
}

const arrivalsArb = fc
  .array(
    fc.record({ gap: fc.nat(40), key: fc.constantFrom('a', 'b', 'c', 'd'), cost: fc.integer({ min: 1, max: 3 }) }),
    { maxLength: 300 },
  )
  .map((steps) => {
    let t = 0;
    return steps.map(({ gap, key, cost }) => ({ t: (t += gap), key, cost }));
  });
const policyArb = fc.record({
  limit: fc.integer({ min: 1, max: 8 }),
  windowMs: fc.integer({ min: 1, max: 200 }),
  burst: fc.integer({ min: 1, max: 8 }),
});

describe('replayLockstep: every contender on one open-loop stream', () => {
  it('gives each contender exactly what a replay on a stream of its own gives (sync, async and mixed limiters)', async () => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, policyArb, fc.integer({ min: 1, max: 4 }), async (arrivals, policy, every) => {
        const contenders = [
          ...ALGORITHMS.map((algorithm) => builtinContender(algorithm, policy)),
          mixedContender(policy, every),
        ];
        const options: ReplayOptions = { limit: policy.limit, windowMs: policy.windowMs, bucketMs: 10, sample: 7 };
        const together = await replayLockstep(contenders, new TrafficStream([listSource(arrivals)]), options);
        const apart = [];
        for (const contender of contenders)
          apart.push(await replay(contender, new TrafficStream([listSource(arrivals)]), options));
        expect(together).toEqual(apart);
      }),
      { numRuns: 150 },
    );
  });

  it('crosses block boundaries (a block is 65,536 arrivals) with a limiter that sometimes answers later', async () => {
    const policy = { limit: 3, windowMs: 50 };
    const arrivals = Array.from({ length: 140_000 }, (_, i) => ({
      t: Math.floor(i / 4),
      key: `k${(i * 7) % 13}`,
      cost: 1 + (i % 2),
    }));
    const contenders = [
      builtinContender('sliding-log', policy),
      mixedContender(policy, 5),
      builtinContender('fixed-window', policy),
    ];
    const options: ReplayOptions = { limit: policy.limit, windowMs: policy.windowMs, bucketMs: 1000, sample: 3 };
    const together = await replayLockstep(contenders, new TrafficStream([listSource(arrivals)]), options);
    const apart = [];
    for (const contender of contenders)
      apart.push(await replay(contender, new TrafficStream([listSource(arrivals)]), options));
    expect(together).toEqual(apart);
    expect(together[0]?.metrics.offered).toBe(140_000);
    expect(together[0]?.metrics).toMatchObject({ falseAdmits: 0, falseDenials: 0 });
  });

  it.each(
    builtinScenarios()
      .filter((s) => !scenarioWorkload(s).open().closedLoop)
      .map((s) => [s.name, s] as const),
  )('%s: the lockstep metrics equal five separate replays', async (_name, scenario) => {
    const workload = scenarioWorkload(scenario);
    const options: ReplayOptions = {
      limit: scenario.policy.limit,
      windowMs: scenario.policy.windowMs,
      bucketMs: workload.bucketMs,
      originMs: 0,
      minBuckets: workload.minBuckets,
    };
    const contenders = ALGORITHMS.map((algorithm) => builtinContender(algorithm, scenario.policy));
    const together = await replayLockstep(contenders, workload.open(), options);
    const apart = [];
    for (const contender of contenders) apart.push(await replay(contender, workload.open(), options));
    expect(together.map((r) => r.metrics)).toEqual(apart.map((r) => r.metrics));
  });

  it('refuses a closed-loop stream with more than one contender (each limiter causes its own retries)', async () => {
    const retry = builtinScenarios().find((s) => scenarioWorkload(s).open().closedLoop);
    if (!retry) throw new Error('no closed-loop built-in');
    const contenders = ALGORITHMS.map((algorithm) => builtinContender(algorithm, retry.policy));
    const options: ReplayOptions = { limit: retry.policy.limit, windowMs: retry.policy.windowMs, bucketMs: 100 };
    const refused = replayLockstep(contenders, scenarioWorkload(retry).open(), options);
    await expect(refused).rejects.toBeInstanceOf(RatelabError);
    await expect(refused).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    const alone = await replayLockstep(contenders.slice(0, 1), scenarioWorkload(retry).open(), options);
    expect(alone[0]?.metrics).toEqual(
      (await replay(contenders[0] as Contender, scenarioWorkload(retry).open(), options)).metrics,
    );
  });

  it('names the contender whose limiter throws, whichever lane it is in', async () => {
    const policy = { limit: 2, windowMs: 100 };
    const broken: Contender = {
      name: 'broken.mjs',
      probe: { module: 'broken.mjs', policy },
      stateBytesPerKey: undefined,
      create: () => ({
        consume: (key: string) => {
          if (key === 'b') throw new Error('no b\nstack');
          return true;
        },
      }),
    };
    const arrivals = [
      { t: 0, key: 'a', cost: 1 },
      { t: 1, key: 'b', cost: 1 },
    ];
    const run = replayLockstep([builtinContender('gcra', policy), broken], new TrafficStream([listSource(arrivals)]), {
      ...policy,
      bucketMs: 10,
    });
    await expect(run).rejects.toMatchObject({
      code: 'INVALID_LIMITER_MODULE',
      message: 'broken.mjs: consume() threw: no b',
    });
  });
});

/** A built-in limiter offering only `consume()`, as a user's module does: the replay builds every Decision. */
function consumeOnly(contender: Contender, algorithm: (typeof ALGORITHMS)[number], policy: Policy): Contender {
  return { ...contender, create: (clock: Clock) => createLimiter(algorithm, policy, { clock }) };
}

describe("the built-ins' admits() shortcut (open loops ask only whether a call is admitted)", () => {
  it('gives exactly the metrics of replaying through consume(), whatever the costs', async () => {
    await fc.assert(
      fc.asyncProperty(arrivalsArb, policyArb, async (arrivals, policy) => {
        const options: ReplayOptions = { limit: policy.limit, windowMs: policy.windowMs, bucketMs: 10, sample: 5 };
        const shortcut = ALGORITHMS.map((algorithm) => builtinContender(algorithm, policy));
        const full = ALGORITHMS.map((algorithm, i) => consumeOnly(shortcut[i] as Contender, algorithm, policy));
        const viaAdmits = await replayLockstep(shortcut, new TrafficStream([listSource(arrivals)]), options);
        const viaConsume = await replayLockstep(full, new TrafficStream([listSource(arrivals)]), options);
        expect(viaAdmits).toEqual(viaConsume);
        const single = await replay(shortcut[0] as Contender, new TrafficStream([listSource(arrivals)]), options);
        expect(single).toEqual(viaConsume[0]);
      }),
      { numRuns: 100 },
    );
  });

  it('is not used by a closed loop, which needs the Decision (its Retry-After paces the retries)', async () => {
    const retry = builtinScenarios().find((s) => scenarioWorkload(s).open().closedLoop);
    if (!retry) throw new Error('no closed-loop built-in');
    const real = builtinContender('token-bucket', retry.policy);
    const refusing: Contender = {
      ...real,
      create: async (clock: Clock) => {
        const decider = await real.create(clock);
        return {
          consume: (key: string, cost: number) => decider.consume(key, cost),
          admits: () => {
            throw new Error('admits() called in a closed loop');
          },
        };
      },
    };
    const options: ReplayOptions = { limit: retry.policy.limit, windowMs: retry.policy.windowMs, bucketMs: 100 };
    const run = await replay(refusing, scenarioWorkload(retry).open(), options);
    expect(run.metrics).toEqual((await replay(real, scenarioWorkload(retry).open(), options)).metrics);
    expect(run.metrics.denied).toBeGreaterThan(0);
  });
});
