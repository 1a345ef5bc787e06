// limiter.wait on a ManualClock: every wait is decided at the clock's time and resolves as
// the clock is advanced past the timer its key holds. Behaviour only: times are the clock's.
import { describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  ManualClock,
  RatelabError,
  createLimiter,
  type Decision,
  type Policy,
  type PolicyInput,
  type RateLimiter,
} from '../../src/index.js';
import { WAIT_TABLES } from './wait-tables.js';

/** Lets promise reactions run (the clock fires timers synchronously; awaiting code runs after). */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A token bucket of 10 per second, burst 1: one unit every 100 ms. */
const TEN_PER_SECOND: Policy = { limit: 10, windowMs: 1000, burst: 1 };

function setup(policy: PolicyInput = TEN_PER_SECOND, algorithm: (typeof ALGORITHMS)[number] = 'token-bucket') {
  const clock = new ManualClock(0);
  const limiter = createLimiter(algorithm, policy, { clock });
  /** Settled waits, in the order they settled, each with the clock's time then. */
  const settled: { name: string; at: number; outcome: 'resolved' | string }[] = [];
  const track = (name: string, wait: Promise<Decision>) =>
    wait.then(
      () => void settled.push({ name, at: clock.now(), outcome: 'resolved' }),
      (error: unknown) =>
        void settled.push({
          name,
          at: clock.now(),
          outcome: error instanceof RatelabError ? error.code : (error as Error).name,
        }),
    );
  return { clock, limiter, settled, track };
}

/** Advances `clock` one ms at a time, letting what awaits run between steps. */
async function step(clock: ManualClock, ms: number): Promise<void> {
  await flush();
  for (let i = 0; i < ms; i++) {
    clock.advance(1);
    await flush();
  }
}

describe('the wait tables (test/wait/wait-tables.ts; test/runtimes/ plays them on Bun, Deno, workerd)', () => {
  it.each(WAIT_TABLES.map((table) => [table.name, table] as const))('%s', async (_name, table) => {
    const { limiter, clock, settled, track } = setup(table.policy, table.algorithm);
    const calls = [...table.calls];
    for (let t = 0; t <= table.until; t++) {
      if (t > 0) clock.advance(1);
      for (let call = calls[0]; call !== undefined && call.at <= t; call = calls[0]) {
        calls.shift();
        if (call.kind === 'consume') limiter.consume('k', call.cost);
        else void track(call.name, limiter.wait('k', call.cost));
      }
      await flush();
    }
    const waits = table.calls.filter((call) => call.kind === 'wait');
    expect(settled).toEqual(waits.map(({ name, resolvesAt }) => ({ name, at: resolvesAt, outcome: 'resolved' })));
  });

  it('several limits: at 10 s each log holds the fourth wait; slow still holds the third, its first two gone', async () => {
    const table = WAIT_TABLES[0]!;
    const { limiter, clock } = setup(table.policy, table.algorithm);
    for (let i = 0; i < 4; i++) void limiter.wait('k');
    await step(clock, table.until);
    expect(limiter.consume('k', 0).limits?.map((l) => [l.name, l.remaining])).toEqual([
      ['burst', 1],
      ['slow', 1],
    ]);
  });
});

describe('limiter.wait on several limits', () => {
  /** 2 per second and 3 per 10 seconds, sliding logs: the short limit binds first, then the long one. */
  const BURST_AND_SLOW: PolicyInput = WAIT_TABLES[0]!.policy;

  it('refuses at once a cost over the tightest limit’s capacity: no wait could admit it', async () => {
    const { limiter, settled, track } = setup(BURST_AND_SLOW, 'sliding-log');
    await track('three at once', limiter.wait('k', 3));
    expect(settled).toEqual([{ name: 'three at once', at: 0, outcome: 'COST_OVER_CAPACITY' }]);
  });
});

describe('limiter.wait on a ManualClock', () => {
  it('resolves at once, taking the units, when they are free', async () => {
    const { limiter, clock } = setup();
    const decision = await limiter.wait('k');
    expect(decision).toMatchObject({ allowed: true, remaining: 0 });
    expect(clock.pendingTimers).toBe(0);
  });

  it('waits for retryAfterMs, holding one timer, and resolves when the clock passes it', async () => {
    const { limiter, clock, settled, track } = setup();
    limiter.consume('k');
    void track('a', limiter.wait('k'));
    await flush();
    expect(settled).toEqual([]);
    expect(clock.pendingTimers).toBe(1);
    clock.advance(99);
    await flush();
    expect(settled).toEqual([]);
    clock.advance(1);
    await flush();
    expect(settled).toEqual([{ name: 'a', at: 100, outcome: 'resolved' }]);
    expect(clock.pendingTimers).toBe(0);
  });

  it('a long advance serves each waiter at its own time (timers fire with the clock at their due time)', async () => {
    const { limiter, clock } = setup();
    const times: number[] = [];
    const waits = Array.from({ length: 5 }, () => limiter.wait('k').then(() => times.push(clock.now())));
    clock.advance(10_000);
    await Promise.all(waits);
    // Resolved after advance returned, but each was decided at 0, 100, 200, ...: the bucket is empty again now.
    expect(limiter.consume('k').allowed).toBe(true);
    expect(limiter.consume('k', 0).remaining).toBe(0);
  });

  it('keys wait apart: a waiting key does not hold up another', async () => {
    const { limiter, clock, settled, track } = setup();
    limiter.consume('a');
    void track('a', limiter.wait('a'));
    void track('b', limiter.wait('b'));
    await flush();
    expect(settled).toEqual([{ name: 'b', at: 0, outcome: 'resolved' }]);
    expect(clock.pendingTimers).toBe(1);
  });
});

describe('aborting a wait', () => {
  it('rejects with the signal reason (an AbortError by default), takes nothing, and the next waiter goes first', async () => {
    const { limiter, clock, settled, track } = setup();
    limiter.consume('k');
    const controller = new AbortController();
    void track('aborted', limiter.wait('k', 1, { signal: controller.signal }));
    void track('next', limiter.wait('k'));
    await step(clock, 50);
    controller.abort();
    await flush();
    expect(settled).toEqual([{ name: 'aborted', at: 50, outcome: 'AbortError' }]);
    await step(clock, 50);
    // The aborted waiter's unit was never taken: the next one gets it at 100, not 200.
    expect(settled.at(-1)).toEqual({ name: 'next', at: 100, outcome: 'resolved' });
    expect(clock.pendingTimers).toBe(0);
  });

  it('the first waiter aborted, a smaller next one that fits now is served at once', async () => {
    const { limiter, clock, settled, track } = setup({ limit: 10, windowMs: 1000, burst: 5 });
    limiter.consume('k', 5);
    const controller = new AbortController();
    void track('large', limiter.wait('k', 5, { signal: controller.signal }));
    void track('small', limiter.wait('k', 1));
    await step(clock, 150);
    controller.abort();
    await flush();
    expect(settled.map((s) => [s.name, s.at, s.outcome])).toEqual([
      ['large', 150, 'AbortError'],
      ['small', 150, 'resolved'],
    ]);
  });

  it('a waiter behind the first can be aborted; the others keep their places', async () => {
    const { limiter, clock, settled, track } = setup();
    limiter.consume('k');
    const controller = new AbortController();
    void track('first', limiter.wait('k'));
    void track('middle', limiter.wait('k', 1, { signal: controller.signal }));
    void track('last', limiter.wait('k'));
    controller.abort(new Error('caller gave up'));
    await step(clock, 200);
    expect(settled.map((s) => [s.name, s.at, s.outcome])).toEqual([
      ['middle', 0, 'Error'],
      ['first', 100, 'resolved'],
      ['last', 200, 'resolved'],
    ]);
  });

  it('one signal shared by many waiters (a throttle’s): one listener, all rejected at once, none served on the way', async () => {
    const { limiter, clock, settled, track } = setup({ limit: 10, windowMs: 1000, burst: 5 });
    limiter.consume('k', 5);
    const controller = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      for (let i = 0; i < 30; i++) void track(`shared-${i}`, limiter.wait('k', 1, { signal: controller.signal }));
      void track('other', limiter.wait('k', 1));
      await step(clock, 150);
      controller.abort();
      await flush();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
    // One unit came back by 100 ms and went to shared-0; the other 29 are rejected together,
    // and the unit back at 200 ms goes to the one waiter without the signal.
    expect(settled.filter((s) => s.outcome === 'AbortError')).toHaveLength(29);
    await step(clock, 50);
    expect(settled.filter((s) => s.outcome === 'resolved').map((s) => [s.name, s.at])).toEqual([
      ['shared-0', 100],
      ['other', 200],
    ]);
  });

  it('an already aborted signal rejects at once, taking nothing', async () => {
    const { limiter } = setup();
    await expect(limiter.wait('k', 1, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
    expect(limiter.consume('k', 0).remaining).toBe(1);
  });
});

describe('waits that cannot finish', () => {
  it('maxWaitMs shorter than the wait rejects at once with WAIT_TOO_LONG, holding no timer', async () => {
    const { limiter, clock } = setup();
    limiter.consume('k');
    const wait = limiter.wait('k', 1, { maxWaitMs: 50 });
    expect(clock.pendingTimers).toBe(0);
    await expect(wait).rejects.toMatchObject({ code: 'WAIT_TOO_LONG', field: 'maxWaitMs' });
  });

  it('maxWaitMs long enough waits and resolves', async () => {
    const { limiter, clock, settled, track } = setup();
    limiter.consume('k');
    void track('a', limiter.wait('k', 1, { maxWaitMs: 100 }));
    await step(clock, 100);
    expect(settled).toEqual([{ name: 'a', at: 100, outcome: 'resolved' }]);
  });

  it('behind others, a wait past the first one’s wake-up time rejects at once; one that may fit waits, and is rejected when its turn shows it cannot', async () => {
    const { limiter, clock, settled, track } = setup();
    limiter.consume('k');
    void track('first', limiter.wait('k'));
    void track('hopeless', limiter.wait('k', 1, { maxWaitMs: 50 }));
    void track('tight', limiter.wait('k', 1, { maxWaitMs: 150 }));
    void track('last', limiter.wait('k'));
    await flush();
    expect(settled).toEqual([{ name: 'hopeless', at: 0, outcome: 'WAIT_TOO_LONG' }]);
    await step(clock, 100);
    // first is served at 100; tight would need 200 > 150: rejected then, last moves up.
    expect(settled.slice(1).map((s) => [s.name, s.at, s.outcome])).toEqual([
      ['first', 100, 'resolved'],
      ['tight', 100, 'WAIT_TOO_LONG'],
    ]);
    await step(clock, 100);
    expect(settled.at(-1)).toEqual({ name: 'last', at: 200, outcome: 'resolved' });
  });

  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: a cost over capacity rejects at once with COST_OVER_CAPACITY',
    async (algorithm) => {
      const { limiter, clock } = setup({ limit: 3, windowMs: 1000 }, algorithm);
      await expect(limiter.wait('k', 4)).rejects.toMatchObject({ code: 'COST_OVER_CAPACITY', field: 'cost' });
      expect(clock.pendingTimers).toBe(0);
      expect(limiter.consume('k', 0).remaining).toBe(3);
    },
  );

  it.each([
    ['a negative cost', (l: RateLimiter) => l.wait('k', -1), 'INVALID_COST'],
    ['a fractional cost', (l: RateLimiter) => l.wait('k', 1.5), 'INVALID_COST'],
    ['a key that is not a string', (l: RateLimiter) => l.wait(undefined as unknown as string), 'INVALID_KEY'],
    ['a negative maxWaitMs', (l: RateLimiter) => l.wait('k', 1, { maxWaitMs: -1 }), 'INVALID_ARGUMENT'],
    ['a NaN maxWaitMs', (l: RateLimiter) => l.wait('k', 1, { maxWaitMs: Number.NaN }), 'INVALID_ARGUMENT'],
    ['a maxWaitMs of -Infinity', (l: RateLimiter) => l.wait('k', 1, { maxWaitMs: -Infinity }), 'INVALID_ARGUMENT'],
    [
      'a maxWaitMs that is a string',
      (l: RateLimiter) => l.wait('k', 1, { maxWaitMs: '100' as unknown as number }),
      'INVALID_ARGUMENT',
    ],
    ['a NaN cost', (l: RateLimiter) => l.wait('k', Number.NaN), 'INVALID_COST'],
    ['an infinite cost', (l: RateLimiter) => l.wait('k', Infinity), 'INVALID_COST'],
    [
      'options that are not an object',
      (l: RateLimiter) => l.wait('k', 1, 100 as unknown as object),
      'INVALID_ARGUMENT',
    ],
    [
      'a signal that is not one',
      (l: RateLimiter) => l.wait('k', 1, { signal: 'stop' as unknown as AbortSignal }),
      'INVALID_ARGUMENT',
    ],
  ])('%s rejects (never throws) with %s', async (_what, call, code) => {
    const { limiter } = setup();
    let wait: Promise<Decision> | undefined;
    expect(() => (wait = call(limiter))).not.toThrow();
    await expect(wait).rejects.toMatchObject({ code });
  });
});

describe('every algorithm waits exactly as long as its decisions say', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: six waits on 2 per 100 ms resolve when a caller asking every ms would be admitted',
    async (algorithm) => {
      const policy = { limit: 2, windowMs: 100 };
      const { limiter, clock, settled, track } = setup(policy, algorithm);
      for (let i = 0; i < 6; i++) void track(String(i), limiter.wait('k'));
      await step(clock, 400);
      expect(settled.map((s) => s.outcome)).toEqual(Array(6).fill('resolved'));
      const pollClock = new ManualClock(0);
      const polled = createLimiter(algorithm, policy, { clock: pollClock });
      const admittedAt: number[] = [];
      for (; admittedAt.length < 6; pollClock.advance(1))
        while (admittedAt.length < 6 && polled.consume('k').allowed) admittedAt.push(pollClock.now());
      expect(settled.map((s) => s.at)).toEqual(admittedAt);
    },
  );
});

describe('timers: one per key with waiters, none once served', () => {
  it('10,000 keys with waiters hold 10,000 timers; once served, none', async () => {
    const { limiter, clock } = setup();
    const keys = Array.from({ length: 10_000 }, (_, i) => `key-${i}`);
    for (const key of keys) limiter.consume(key);
    const waits = keys.flatMap((key) => [limiter.wait(key), limiter.wait(key), limiter.wait(key)]);
    expect(clock.pendingTimers).toBe(10_000);
    clock.advance(100);
    expect(clock.pendingTimers).toBe(10_000);
    clock.advance(200);
    await Promise.all(waits);
    expect(clock.pendingTimers).toBe(0);
  });
});
