// throttle(fn) on a ManualClock: per-key call order, and never more runs than the policy
// admits in any window (the exact oracle of test/support/oracles.ts judges every run).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, ManualClock, RatelabError, createLimiter, throttle } from '../../src/index.js';
import { costArb, gapArb, policyArb } from '../support/arbitraries.js';
import { expectRatelabError } from '../support/errors.js';
import { oracleFor } from '../support/oracles.js';

/** Enough microtask turns for a timer's resolution to reach the throttled function. */
async function settle(): Promise<void> {
  for (let i = 0; i < 8; i++) await Promise.resolve();
}

const callsArb = fc.array(fc.record({ gap: gapArb, cost: costArb, key: fc.constantFrom('a', 'b') }), {
  minLength: 1,
  maxLength: 25,
});

describe('throttle', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: runs every call in per-key call order, each run one the exact oracle admits at its time',
    async (algorithm) => {
      await fc.assert(
        fc.asyncProperty(policyArb, callsArb, async (policy, calls) => {
          const clock = new ManualClock(0);
          const limiter = createLimiter(algorithm, policy, { clock });
          const runs: { call: number; key: string; cost: number; at: number }[] = [];
          const send = throttle(
            (call: number, key: string, cost: number) => runs.push({ call, key, cost, at: clock.now() }),
            {
              limiter,
              key: (_call, key) => key,
              cost: (_call, _key, cost) => cost,
            },
          );
          const outcomes: Promise<string>[] = [];
          for (const [call, { gap, key, cost }] of calls.entries()) {
            for (let i = 0; i < gap; i++) {
              clock.advance(1);
              await settle();
            }
            outcomes.push(
              send(call, key, cost).then(
                () => 'ran',
                (error: unknown) => (error instanceof RatelabError ? error.code : String(error)),
              ),
            );
            await settle();
          }
          for (let i = 0; clock.pendingTimers > 0; i++) {
            if (i > 100_000) throw new Error('waits never ended');
            clock.advance(1);
            await settle();
          }
          const capacity = limiter.limits.capacity;
          expect(await Promise.all(outcomes)).toEqual(
            calls.map((c) => (c.cost > capacity ? 'COST_OVER_CAPACITY' : 'ran')),
          );
          for (const key of ['a', 'b']) {
            const ofKey = runs.filter((run) => run.key === key);
            expect(ofKey.map((run) => run.call)).toEqual([...ofKey.map((run) => run.call)].sort((x, y) => x - y));
            const oracle = oracleFor(algorithm, policy);
            for (const run of ofKey)
              expect(oracle.consume(run.at, run.cost).allowed, `run ${run.call} at ${run.at}`).toBe(true);
          }
        }),
        { numRuns: 60 },
      );
    },
    60_000,
  );

  it("returns fn's result (awaited), passes its arguments and this, and rejects with fn's error", async () => {
    const limiter = createLimiter('token-bucket', { limit: 10, windowMs: 1000 }, { clock: new ManualClock(0) });
    const add = throttle(async (a: number, b: number) => a + b, { limiter });
    await expect(add(2, 3)).resolves.toBe(5);
    const object = {
      base: 10,
      plus: throttle(
        function (this: { base: number }, n: number) {
          return this.base + n;
        },
        { limiter },
      ),
    };
    await expect(object.plus(1)).resolves.toBe(11);
    const fail = throttle(
      () => {
        throw new Error('upstream said no');
      },
      { limiter },
    );
    await expect(fail()).rejects.toThrow('upstream said no');
  });

  it('does not call fn when the wait fails (too long, over capacity, aborted)', async () => {
    const clock = new ManualClock(0);
    const limiter = createLimiter('token-bucket', { limit: 1, windowMs: 1000 }, { clock });
    let calls = 0;
    const controller = new AbortController();
    const call = throttle((_cost: number) => ++calls, {
      limiter,
      cost: (cost) => cost,
      maxWaitMs: 500,
      signal: controller.signal,
    });
    await call(1);
    await expect(call(1)).rejects.toMatchObject({ code: 'WAIT_TOO_LONG' });
    await expect(call(2)).rejects.toMatchObject({ code: 'COST_OVER_CAPACITY' });
    controller.abort();
    await expect(call(1)).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toBe(1);
  });

  it('a key function that throws rejects that call', async () => {
    const limiter = createLimiter('token-bucket', { limit: 1, windowMs: 1000 }, { clock: new ManualClock(0) });
    const call = throttle((id: string) => id, {
      limiter,
      key: () => {
        throw new Error('no tenant');
      },
    });
    await expect(call('x')).rejects.toThrow('no tenant');
  });

  it.each([
    [
      'fn that is not a function',
      () => throttle(42 as unknown as () => void, { limiter: createLimiter('gcra', { limit: 1, windowMs: 1 }) }),
      'fn',
    ],
    ['a limiter without wait', () => throttle(() => 1, { limiter: { consume: () => 1 } as never }), 'limiter'],
    [
      'a key that is neither string nor function',
      () => throttle(() => 1, { limiter: createLimiter('gcra', { limit: 1, windowMs: 1 }), key: 7 as never }),
      'key',
    ],
    [
      'a cost that is neither number nor function',
      () => throttle(() => 1, { limiter: createLimiter('gcra', { limit: 1, windowMs: 1 }), cost: '2' as never }),
      'cost',
    ],
  ])('refuses %s when it is made (INVALID_ARGUMENT naming it)', (_what, make, field) => {
    expectRatelabError(make, 'INVALID_ARGUMENT', field);
  });

  // Every value a call would be refused for is refused when throttle is made, by the same
  // checks wait() makes: a throttled function that can only reject is never handed out.
  const limiter = () => createLimiter('gcra', { limit: 1, windowMs: 1000 }, { clock: new ManualClock(0) });
  it.each([
    {
      option: { maxWaitMs: Number.NaN },
      code: 'INVALID_ARGUMENT',
      field: 'maxWaitMs',
      why: 'NaN compares false with every time: each call would reject',
    },
    { option: { maxWaitMs: -1 }, code: 'INVALID_ARGUMENT', field: 'maxWaitMs', why: 'no wait is shorter than none' },
    { option: { maxWaitMs: -Infinity }, code: 'INVALID_ARGUMENT', field: 'maxWaitMs', why: 'negative, however far' },
    {
      option: { maxWaitMs: '100' },
      code: 'INVALID_ARGUMENT',
      field: 'maxWaitMs',
      why: 'a string is not a number of ms',
    },
    { option: { signal: 'stop' }, code: 'INVALID_ARGUMENT', field: 'signal', why: 'not an AbortSignal' },
    { option: { cost: Number.NaN }, code: 'INVALID_COST', field: 'cost', why: 'a cost is a whole number of units' },
    { option: { cost: -1 }, code: 'INVALID_COST', field: 'cost', why: 'a negative cost would give units back' },
    { option: { cost: 1.5 }, code: 'INVALID_COST', field: 'cost', why: 'units are whole' },
    { option: { cost: Infinity }, code: 'INVALID_COST', field: 'cost', why: 'no policy admits an infinite cost' },
  ] as const)('refuses $option when it is made ($code naming $field): $why', ({ option, code, field }) => {
    expectRatelabError(() => throttle(() => 1, { limiter: limiter(), ...(option as object) }), code, field);
  });

  it.each([
    { option: { maxWaitMs: Infinity }, why: 'the default: wait as long as it takes' },
    { option: { maxWaitMs: 0 }, why: 'only a slot free now' },
    { option: { cost: 0 }, why: 'a call that takes nothing (asks whether the key is over)' },
  ])('accepts $option: $why', async ({ option }) => {
    const call = throttle(() => 'ran', { limiter: limiter(), ...option });
    await expect(call()).resolves.toBe('ran');
  });
});
