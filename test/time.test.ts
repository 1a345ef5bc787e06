import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALGORITHMS, MAX_LIMIT, ManualClock, SLIDING_LOG_MAX_LIMIT, createLimiter, type Algorithm } from '../src/index.js';
import { policyArb, replay, type Arrival } from './support/arbitraries.js';
import { inWindow } from './support/oracles.js';

const EPOCH = 1_800_000_000_000;
const DAY = 86_400_000;

/** Times that wander backwards as well as forwards. */
const wanderingArb = fc.array(fc.record({ at: fc.integer({ min: -40, max: 200 }), cost: fc.integer({ min: 0, max: 7 }), key: fc.constant('k') }), { minLength: 1, maxLength: 40 });

/** Each request's time as the key sees it: the latest time it has seen so far. */
function runningMax(arrivals: Arrival[]): Arrival[] {
  let latest = -Infinity;
  return arrivals.map((arrival) => {
    latest = Math.max(latest, arrival.at);
    return { ...arrival, at: latest };
  });
}

describe('a clock that goes backwards', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s: never throws, and decides as if time had stood still at its latest value', (algorithm) => {
    fc.assert(
      fc.property(policyArb, wanderingArb, (policy, arrivals) => {
        const decisions = replay(algorithm, policy, arrivals);
        expect(decisions).toEqual(replay(algorithm, policy, runningMax(arrivals)));
      }),
      { numRuns: 800 },
    );
  });

  it('sliding log: never admits more than limit in any window (t - W, t] of the times it saw', () => {
    fc.assert(
      fc.property(policyArb, wanderingArb, (policy, arrivals) => {
        const decisions = replay('sliding-log', policy, arrivals);
        const admitted = runningMax(arrivals).filter((_, i) => decisions[i]!.allowed);
        for (const { at } of admitted) expect(inWindow(admitted, at, policy.windowMs)).toBeLessThanOrEqual(policy.limit);
      }),
      { numRuns: 800 },
    );
  });

  it('fixed window: never admits more than limit in any aligned window of the times it saw', () => {
    fc.assert(
      fc.property(policyArb, wanderingArb, (policy, arrivals) => {
        const decisions = replay('fixed-window', policy, arrivals);
        const admitted = runningMax(arrivals).filter((_, i) => decisions[i]!.allowed);
        for (const { at } of admitted) {
          const k = Math.floor(at / policy.windowMs);
          const inK = admitted.filter((other) => Math.floor(other.at / policy.windowMs) === k);
          expect(inK.reduce((units, other) => units + other.cost, 0)).toBeLessThanOrEqual(policy.limit);
        }
      }),
      { numRuns: 800 },
    );
  });

  it('a fixed window stepped back into the previous window stays in the later one', () => {
    const clock = new ManualClock(1500);
    const limiter = createLimiter('fixed-window', { limit: 3, windowMs: 1000 }, { clock });
    expect(limiter.consume('k', 3).allowed).toBe(true);
    clock.set(900);
    expect(limiter.consume('k')).toEqual({ allowed: false, limit: 3, remaining: 0, retryAfterMs: 500, resetMs: 500 });
    clock.set(2000);
    expect(limiter.consume('k').allowed).toBe(true);
  });

  it('a token bucket does not refill backwards', () => {
    const clock = new ManualClock(10_000);
    const limiter = createLimiter('token-bucket', { limit: 2, windowMs: 1000 }, { clock });
    expect(limiter.consume('k', 2).allowed).toBe(true);
    clock.set(0);
    expect(limiter.consume('k')).toEqual({ allowed: false, limit: 2, remaining: 0, retryAfterMs: 500, resetMs: 1000 });
    clock.set(10_500);
    expect(limiter.consume('k').allowed).toBe(true);
  });
});

describe('epoch-sized clocks and large limits stay exact', () => {
  it.each([['token-bucket'], ['gcra']] as [Algorithm][])('%s: 4294967295 (the largest limit) per second, 30 days after the limiter started', (algorithm) => {
    const clock = new ManualClock(EPOCH);
    const limiter = createLimiter(algorithm, { limit: MAX_LIMIT, windowMs: 1000 }, { clock });
    limiter.consume('first', 1);
    clock.advance(30 * DAY + 7);
    expect(limiter.consume('k', MAX_LIMIT)).toEqual({ allowed: true, limit: MAX_LIMIT, remaining: 0, retryAfterMs: 0, resetMs: 1000 });
    clock.advance(1000);
    expect(limiter.consume('k', MAX_LIMIT)).toEqual({ allowed: true, limit: MAX_LIMIT, remaining: 0, retryAfterMs: 0, resetMs: 1000 });
    clock.advance(999);
    // 999 ms refill 999 * 4294967295 / 1000 = 4290672327.705 tokens: 0.295 short of the
    // capacity, which the next 1 ms refills.
    expect(limiter.consume('k', MAX_LIMIT)).toEqual({ allowed: false, limit: MAX_LIMIT, remaining: 4_290_672_327, retryAfterMs: 1, resetMs: 1 });
    clock.advance(1);
    expect(limiter.consume('k', MAX_LIMIT).allowed).toBe(true);
  });

  it.each([['token-bucket'], ['gcra']] as [Algorithm][])('%s: an odd large limit decides like it does near 0, a year into the epoch', (algorithm) => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(fc.record({ gap: fc.integer({ min: 0, max: 400 }), cost: fc.integer({ min: 0, max: 1_000_001 }) }), { maxLength: 20 }), (seconds, steps) => {
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
      }),
      { numRuns: 300 },
    );
  });

  it('sliding counter: 1e6 per minute at the epoch, Cloudflare-style', () => {
    const clock = new ManualClock(EPOCH + 30_000);
    const limiter = createLimiter('sliding-counter', { limit: 1_000_000, windowMs: 60_000 }, { clock });
    expect(limiter.consume('k', 840_000).allowed).toBe(true);
    clock.set(EPOCH + 75_000);
    // 840000 * 45/60 + 360000 = 990000; 10000 remain.
    expect(limiter.consume('k', 360_000)).toEqual({ allowed: true, limit: 1_000_000, remaining: 10_000, retryAfterMs: 0, resetMs: 105_000 });
    expect(limiter.consume('k', 10_001)).toMatchObject({ allowed: false, remaining: 10_000 });
    expect(limiter.consume('k', 10_000)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('fixed window: the largest limit in one request, at the epoch', () => {
    const clock = new ManualClock(EPOCH + 1);
    const limiter = createLimiter('fixed-window', { limit: MAX_LIMIT, windowMs: 1000 }, { clock });
    expect(limiter.consume('k', MAX_LIMIT + 1)).toEqual({ allowed: false, limit: MAX_LIMIT, remaining: MAX_LIMIT, retryAfterMs: Infinity, resetMs: 0 });
    expect(limiter.consume('k', MAX_LIMIT)).toEqual({ allowed: true, limit: MAX_LIMIT, remaining: 0, retryAfterMs: 0, resetMs: 999 });
    expect(limiter.consume('k', 1)).toEqual({ allowed: false, limit: MAX_LIMIT, remaining: 0, retryAfterMs: 999, resetMs: 999 });
  });

  it('sliding log: its largest limit, at the epoch', () => {
    const clock = new ManualClock(EPOCH);
    const limiter = createLimiter('sliding-log', { limit: SLIDING_LOG_MAX_LIMIT, windowMs: 1000 }, { clock });
    expect(limiter.consume('k', SLIDING_LOG_MAX_LIMIT - 1).allowed).toBe(true);
    clock.advance(400);
    expect(limiter.consume('k', 2)).toEqual({ allowed: false, limit: SLIDING_LOG_MAX_LIMIT, remaining: 1, retryAfterMs: 600, resetMs: 600 });
    expect(limiter.consume('k', 1)).toEqual({ allowed: true, limit: SLIDING_LOG_MAX_LIMIT, remaining: 0, retryAfterMs: 0, resetMs: 1000 });
  });
});
