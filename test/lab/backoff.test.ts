import { describe, expect, it } from 'vitest';
import type { BackoffSpec, KeySpec, RetrySourceSpec } from '../../src/scenario/scenario.js';
import type { Arrival } from '../../src/traffic/arrival.js';
import { backoffWait } from '../../src/traffic/backoff.js';
import { Random } from '../../src/traffic/random.js';
import { TrafficStream, createSource } from '../../src/traffic/stream.js';

const ONE_KEY: KeySpec = { count: 1, prefix: 'k', pick: 'round-robin', exponent: 1 };
const spec = (jitter: BackoffSpec['jitter']): BackoffSpec => ({ baseMs: 100, capMs: 1000, jitter });

/** The waits of retries 0..n-1 of one request, each decorrelated wait growing from the last. */
function waits(backoff: BackoffSpec, n: number, seed = 1): number[] {
  const random = new Random(seed);
  const out: number[] = [];
  let previous = backoff.baseMs;
  for (let attempt = 0; attempt < n; attempt++) {
    previous = backoffWait(backoff, attempt, previous, random);
    out.push(previous);
  }
  return out;
}

describe('backoffWait: the four variants of Brooker (2015), base 100 ms, cap 1 s', () => {
  it('none: min(cap, base x 2^n), exactly', () => {
    expect(waits(spec('none'), 6)).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  // Bounds per attempt n with v = min(cap, base x 2^n), over many seeds.
  it.each([
    ['full', (v: number): [number, number] => [1, v]],
    ['equal', (v: number): [number, number] => [v / 2, v]],
  ] as const)('%s: every wait within its bounds', (jitter, bounds) => {
    for (let seed = 1; seed <= 200; seed++) {
      waits(spec(jitter), 6, seed).forEach((wait, n) => {
        const [low, high] = bounds(Math.min(1000, 100 * 2 ** n));
        expect(wait).toBeGreaterThanOrEqual(low);
        expect(wait).toBeLessThanOrEqual(high);
      });
    }
  });

  it('decorrelated: within [base, min(cap, 3 x previous)]', () => {
    for (let seed = 1; seed <= 200; seed++) {
      let previous = 100;
      for (const wait of waits(spec('decorrelated'), 8, seed)) {
        expect(wait).toBeGreaterThanOrEqual(100);
        expect(wait).toBeLessThanOrEqual(Math.max(100, Math.min(1000, Math.ceil(3 * previous))));
        previous = wait;
      }
    }
  });

  it.each(['full', 'equal', 'decorrelated'] as const)(
    '%s: the same seed gives the same waits, another seed others',
    (jitter) => {
      expect(waits(spec(jitter), 8, 5)).toEqual(waits(spec(jitter), 8, 5));
      expect(waits(spec(jitter), 8, 6)).not.toEqual(waits(spec(jitter), 8, 5));
    },
  );

  it('never waits less than 1 ms and never overflows past the cap', () => {
    expect(backoffWait({ baseMs: 1, capMs: 1, jitter: 'full' }, 0, 1, new Random(1))).toBe(1);
    expect(backoffWait({ baseMs: 100, capMs: 5000, jitter: 'none' }, 10_000, 100, new Random(1))).toBe(5000);
  });
});

describe('retry clients with backoff', () => {
  const client = (backoff: BackoffSpec, honourRetryAfter: boolean): RetrySourceSpec => ({
    kind: 'retry',
    keys: ONE_KEY,
    cost: 1,
    startMs: 0,
    endMs: 60_000,
    clients: 1,
    rampMs: 0,
    thinkMs: 100_000,
    jitter: 0,
    maxRetries: 5,
    honourRetryAfter,
    backoff,
  });

  /** The times one client sends at while every request is denied with `retryAfter` (given or not). */
  function sendTimes(source: RetrySourceSpec, retryAfterMs: number, given: boolean): number[] {
    const stream = new TrafficStream([createSource(source, new Random(1))], 60_000);
    const times: number[] = [];
    for (let a: Arrival | undefined = stream.next(); a; a = stream.next()) {
      times.push(a.t);
      stream.react(false, retryAfterMs, given);
    }
    return times;
  }

  it.each([
    ['honours a given Retry-After', true, true, [0, 250, 500, 750, 1000, 1250]],
    ['backs off when the limiter gives no Retry-After', true, false, [0, 100, 300, 700, 1500, 2500]],
    [
      'backs off, ignoring a given Retry-After, with honourRetryAfter: false',
      false,
      true,
      [0, 100, 300, 700, 1500, 2500],
    ],
  ])('%s', (_what, honour, given, expected) => {
    expect(sendTimes(client({ baseMs: 100, capMs: 1000, jitter: 'none' }, honour), 250, given)).toEqual(expected);
  });

  it('still gives up on a Retry-After of Infinity (the request can never fit)', () => {
    expect(sendTimes(client({ baseMs: 100, capMs: 1000, jitter: 'none' }, false), Infinity, true)).toEqual([0]);
  });
});
