import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ALGORITHMS,
  MAX_LIMIT,
  ManualClock,
  SLIDING_LOG_MAX_LIMIT,
  createLimiter,
  createSystemClock,
  systemClock,
  type Algorithm,
  type Decision,
} from '../src/index.js';
import { policyArb, replay, type Arrival } from './support/arbitraries.js';
import { expectRatelabError } from './support/errors.js';
import { inWindow, inWindowOf } from './support/oracles.js';

const EPOCH = 1_800_000_000_000;
const DAY = 86_400_000;

/** Times that wander backwards as well as forwards. */
const wanderingArb = fc.array(
  fc.record({ at: fc.integer({ min: -40, max: 200 }), cost: fc.integer({ min: 0, max: 7 }), key: fc.constant('k') }),
  { minLength: 1, maxLength: 40 },
);

/** Each request's time as the key sees it: the latest time it has seen so far. */
function runningMax(arrivals: Arrival[]): Arrival[] {
  let latest = -Infinity;
  return arrivals.map((arrival) => {
    latest = Math.max(latest, arrival.at);
    return { ...arrival, at: latest };
  });
}

describe('a clock that goes backwards', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: never throws, and decides as if time had stood still at its latest value',
    (algorithm) => {
      fc.assert(
        fc.property(policyArb, wanderingArb, (policy, arrivals) => {
          const decisions = replay(algorithm, policy, arrivals);
          expect(decisions).toEqual(replay(algorithm, policy, runningMax(arrivals)));
        }),
        { numRuns: 800 },
      );
    },
  );

  it.each([
    ['sliding-log', 'any window (t - W, t]', inWindow],
    ['fixed-window', 'any aligned window', inWindowOf],
  ] as const)('%s: never admits more than limit in %s of the times it saw', (algorithm, _window, unitsAround) => {
    fc.assert(
      fc.property(policyArb, wanderingArb, (policy, arrivals) => {
        const decisions = replay(algorithm, policy, arrivals);
        const admitted = runningMax(arrivals).filter((_, i) => decisions[i]!.allowed);
        for (const { at } of admitted)
          expect(unitsAround(admitted, at, policy.windowMs)).toBeLessThanOrEqual(policy.limit);
      }),
      { numRuns: 800 },
    );
  });

  it.each([
    [
      'a fixed window stepped back into the previous window stays in the later one',
      'fixed-window',
      1500,
      900,
      2000,
      { allowed: false, limit: 3, remaining: 0, retryAfterMs: 500, resetMs: 500 },
    ],
    [
      'a token bucket does not refill backwards',
      'token-bucket',
      10_000,
      0,
      11_000,
      { allowed: false, limit: 3, remaining: 0, retryAfterMs: 334, resetMs: 1000 },
    ],
    [
      'a sliding log does not expire entries backwards',
      'sliding-log',
      5000,
      3000,
      6000,
      { allowed: false, limit: 3, remaining: 0, retryAfterMs: 1000, resetMs: 1000 },
    ],
  ] as [string, Algorithm, number, number, number, Decision][])(
    '%s',
    (_name, algorithm, first, back, again, denied) => {
      // Full quota taken at `first`; at the earlier `back` the key is decided as of `first`,
      // and waits count from there; `again` is `first` plus that wait.
      const clock = new ManualClock(first);
      const limiter = createLimiter(algorithm, { limit: 3, windowMs: 1000 }, { clock });
      expect(limiter.consume('k', 3).allowed).toBe(true);
      clock.set(back);
      expect(limiter.consume('k')).toEqual(denied);
      clock.set(first + denied.retryAfterMs - 1);
      expect(limiter.consume('k').allowed).toBe(false);
      clock.set(again);
      expect(limiter.consume('k').allowed).toBe(true);
    },
  );
});

describe('epoch-sized clocks and large limits stay exact', () => {
  it.each([['token-bucket'], ['gcra']] as [Algorithm][])(
    '%s: 4294967295 (the largest limit) per second, 30 days after the limiter started',
    (algorithm) => {
      const clock = new ManualClock(EPOCH);
      const limiter = createLimiter(algorithm, { limit: MAX_LIMIT, windowMs: 1000 }, { clock });
      limiter.consume('first', 1);
      clock.advance(30 * DAY + 7);
      expect(limiter.consume('k', MAX_LIMIT)).toEqual({
        allowed: true,
        limit: MAX_LIMIT,
        remaining: 0,
        retryAfterMs: 0,
        resetMs: 1000,
      });
      clock.advance(1000);
      expect(limiter.consume('k', MAX_LIMIT)).toEqual({
        allowed: true,
        limit: MAX_LIMIT,
        remaining: 0,
        retryAfterMs: 0,
        resetMs: 1000,
      });
      clock.advance(999);
      // 999 ms refill 999 * 4294967295 / 1000 = 4290672327.705 tokens: 0.295 short of the
      // capacity, which the next 1 ms refills.
      expect(limiter.consume('k', MAX_LIMIT)).toEqual({
        allowed: false,
        limit: MAX_LIMIT,
        remaining: 4_290_672_327,
        retryAfterMs: 1,
        resetMs: 1,
      });
      clock.advance(1);
      expect(limiter.consume('k', MAX_LIMIT).allowed).toBe(true);
    },
  );

  it.each([['token-bucket'], ['gcra']] as [Algorithm][])(
    '%s: an odd large limit decides like it does near 0, a year into the epoch',
    (algorithm) => {
      fc.assert(
        fc.property(
          fc.integer({ min: 1, max: 5 }),
          fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), cost: fc.integer({ min: 0, max: 1_000_001 }) }), {
            maxLength: 20,
          }),
          (seconds, steps) => {
            const policy = { limit: 999_999, windowMs: 1000 * seconds };
            const run = (start: number, warmup: number) => {
              const clock = new ManualClock(start);
              const limiter = createLimiter(algorithm, policy, { clock });
              limiter.consume('warm', 1);
              clock.advance(warmup);
              return steps.map(({ gap, cost }) => {
                clock.advance(gap);
                return limiter.consume('k', cost);
              });
            };
            expect(run(EPOCH, 365 * DAY)).toEqual(run(0, 0));
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it.each([
    ['token-bucket', 1],
    ['gcra', 1],
    ['sliding-counter', 2],
  ] as [Algorithm, number][])(
    '%s: remaining and retryAfterMs stay exact at the longest window it accepts for a huge limit',
    (algorithm, factor) => {
      fc.assert(
        fc.property(
          fc.integer({ min: MAX_LIMIT - 1000, max: MAX_LIMIT }),
          fc.array(
            fc.tuple(fc.double({ min: 0, max: 1.5, noNaN: true }), fc.double({ min: 0, max: 0.5, noNaN: true })),
            { minLength: 1, maxLength: 8 },
          ),
          (limit, steps) => {
            const policy = { limit, windowMs: Math.floor(Number.MAX_SAFE_INTEGER / (factor * limit)) };
            let at = EPOCH;
            const arrivals = steps.map(([gap, share]) => ({
              at: (at += Math.floor(gap * policy.windowMs)),
              cost: Math.floor(share * limit),
              key: 'k',
            }));
            const { remaining } = replay(algorithm, policy, arrivals).at(-1)!;
            const last = arrivals.at(-1)!;
            expect(replay(algorithm, policy, [...arrivals, { ...last, cost: remaining }]).at(-1)!.allowed).toBe(true);
            const denied = replay(algorithm, policy, [...arrivals, { ...last, cost: remaining + 1 }]).at(-1)!;
            expect(denied.allowed).toBe(false);
            if (remaining === denied.limit) return; // asked for more than the capacity: Infinity
            expect(
              replay(algorithm, policy, [
                ...arrivals,
                { ...last, at: last.at + denied.retryAfterMs, cost: remaining + 1 },
              ]).at(-1)!.allowed,
            ).toBe(true);
            expect(
              replay(algorithm, policy, [
                ...arrivals,
                { ...last, at: last.at + denied.retryAfterMs - 1, cost: remaining + 1 },
              ]).at(-1)!.allowed,
            ).toBe(false);
          },
        ),
        { numRuns: 300 },
      );
    },
  );

  it('sliding counter: 1e6 per minute at the epoch, Cloudflare-style', () => {
    const clock = new ManualClock(EPOCH + 30_000);
    const limiter = createLimiter('sliding-counter', { limit: 1_000_000, windowMs: 60_000 }, { clock });
    expect(limiter.consume('k', 840_000).allowed).toBe(true);
    clock.set(EPOCH + 75_000);
    // 840000 * 45/60 + 360000 = 990000; 10000 remain.
    expect(limiter.consume('k', 360_000)).toEqual({
      allowed: true,
      limit: 1_000_000,
      remaining: 10_000,
      retryAfterMs: 0,
      resetMs: 105_000,
    });
    expect(limiter.consume('k', 10_001)).toMatchObject({ allowed: false, remaining: 10_000 });
    expect(limiter.consume('k', 10_000)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('fixed window: the largest limit in one request, at the epoch', () => {
    const clock = new ManualClock(EPOCH + 1);
    const limiter = createLimiter('fixed-window', { limit: MAX_LIMIT, windowMs: 1000 }, { clock });
    expect(limiter.consume('k', MAX_LIMIT + 1)).toEqual({
      allowed: false,
      limit: MAX_LIMIT,
      remaining: MAX_LIMIT,
      retryAfterMs: Infinity,
      resetMs: 0,
    });
    expect(limiter.consume('k', MAX_LIMIT)).toEqual({
      allowed: true,
      limit: MAX_LIMIT,
      remaining: 0,
      retryAfterMs: 0,
      resetMs: 999,
    });
    expect(limiter.consume('k', 1)).toEqual({
      allowed: false,
      limit: MAX_LIMIT,
      remaining: 0,
      retryAfterMs: 999,
      resetMs: 999,
    });
  });

  it('sliding log: its largest limit, at the epoch', () => {
    const clock = new ManualClock(EPOCH);
    const limiter = createLimiter('sliding-log', { limit: SLIDING_LOG_MAX_LIMIT, windowMs: 1000 }, { clock });
    expect(limiter.consume('k', SLIDING_LOG_MAX_LIMIT - 1).allowed).toBe(true);
    clock.advance(400);
    expect(limiter.consume('k', 2)).toEqual({
      allowed: false,
      limit: SLIDING_LOG_MAX_LIMIT,
      remaining: 1,
      retryAfterMs: 600,
      resetMs: 600,
    });
    expect(limiter.consume('k', 1)).toEqual({
      allowed: true,
      limit: SLIDING_LOG_MAX_LIMIT,
      remaining: 0,
      retryAfterMs: 0,
      resetMs: 1000,
    });
  });
});

describe('clock sources', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('the system clock reads epoch ms and holds still when the wall clock steps back', () => {
    const readings = [1_800_000_000_000, 1_800_000_000_500, 1_799_999_999_000, 1_800_000_000_400, 1_800_000_000_600];
    vi.spyOn(Date, 'now').mockImplementation(() => readings.shift() as number);
    const clock = createSystemClock();
    expect([clock(), clock(), clock(), clock(), clock()]).toEqual([
      1_800_000_000_000, 1_800_000_000_500, 1_800_000_000_500, 1_800_000_000_500, 1_800_000_000_600,
    ]);
  });

  it('systemClock, the deprecated old name, is the same factory as createSystemClock', () => {
    expect(systemClock).toBe(createSystemClock);
  });

  it.each([[NaN], [Infinity], [undefined]])(
    'a clock reading %s is refused with INVALID_ARGUMENT, changing nothing',
    (reading) => {
      let now: number | undefined = 0;
      const limiter = createLimiter('token-bucket', { limit: 2, windowMs: 1000 }, { clock: () => now as number });
      limiter.consume('k');
      now = reading;
      for (const call of [() => limiter.consume('k'), () => limiter.allow('k'), () => limiter.prune()]) {
        expectRatelabError(call, 'INVALID_ARGUMENT', 'clock');
      }
      now = 0;
      expect(limiter.consume('k', 0)).toMatchObject({ remaining: 1 });
      expect(limiter.size).toBe(1);
    },
  );

  it('a plain function serves as a clock', () => {
    let now = 0;
    const limiter = createLimiter('fixed-window', { limit: 1, windowMs: 10 }, { clock: () => now });
    expect(limiter.allow('k')).toBe(true);
    expect(limiter.allow('k')).toBe(false);
    now = 10;
    expect(limiter.allow('k')).toBe(true);
  });
});
