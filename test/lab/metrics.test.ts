import { describe, expect, it } from 'vitest';
import { jainIndex } from '../../src/metrics/fairness.js';
import { oracleAdmits } from '../../src/metrics/oracle.js';
import { MetricsRecorder } from '../../src/metrics/recorder.js';
import { WindowLedger } from '../../src/metrics/window-ledger.js';

describe('the exact oracle (sliding-window log)', () => {
  // limit 3 per 100 ms: a unit admitted at t leaves the window (t' - 100, t'] at t' = t + 100.
  it.each([
    { at: [0, 0, 0, 0], costs: [1, 1, 1, 1], expected: [true, true, true, false] },
    { at: [0, 0, 0, 99, 100], costs: [1, 1, 1, 1, 1], expected: [true, true, true, false, true] },
    { at: [0, 50, 100, 120], costs: [2, 2, 1, 2], expected: [true, false, true, true] },
    { at: [0, 50, 100, 120], costs: [2, 1, 1, 2], expected: [true, true, true, false] },
    { at: [0, 10], costs: [4, 3], expected: [false, true] },
  ])('admits exactly what fits in (t - W, t]: $at x $costs', ({ at, costs, expected }) => {
    const ledger = new WindowLedger();
    const decide = (t: number, cost: number) => {
      const slot = ledger.slot('k');
      ledger.expire(t - 100);
      const admitted = oracleAdmits(ledger, slot, cost, 3);
      ledger.add(slot, t, admitted ? cost : 0, 0);
      return admitted;
    };
    expect(at.map((t, i) => decide(t, costs[i] as number))).toEqual(expected);
  });
});

describe('jainIndex', () => {
  it.each([
    [[1, 1, 1, 1], 1],
    [[1, 0, 0, 0], 0.25],
    [[0.5, 1], 0.9],
    [[0, 0], 1],
  ])('%j -> %d', (shares, expected) => {
    expect(jainIndex(shares)).toBeCloseTo(expected, 10);
  });

  it('is undefined for a single key', () => {
    expect(jainIndex([0.3])).toBeNull();
  });
});

describe('WindowLedger', () => {
  it("keeps each key's sums over its own window while expiring all keys in one time-ordered log", () => {
    const ledger = new WindowLedger();
    const [a, b] = [ledger.slot('a'), ledger.slot('b')];
    for (let t = 0; t < 5000; t++) {
      ledger.expire(t - 10);
      ledger.add(t % 2 === 0 ? a : b, t, 1, 2);
    }
    // In (4989, 4999]: times 4990..4999, five per key.
    expect([ledger.oracleSum[a], ledger.keptSum[a], ledger.oracleSum[b], ledger.keptSum[b]]).toEqual([5, 10, 5, 10]);
    ledger.expire(10_000);
    expect([ledger.oracleSum[a], ledger.keptSum[b]]).toEqual([0, 0]);
    expect(ledger.slot('a')).toBe(a);
  });
});

describe('MetricsRecorder', () => {
  it('counts false admits and denials against the oracle, and the worst window per key', () => {
    const recorder = new MetricsRecorder({ limit: 2, windowMs: 10, bucketMs: 5, originMs: 0 });
    // A limiter that admits everything on key a, and denies the first request of key b.
    const events: [number, string, boolean][] = [
      [0, 'a', true],
      [1, 'a', true],
      [2, 'a', true], // oracle: denies (3rd in window): a false admit
      [3, 'b', false], // oracle: admits: a false denial
      [11, 'a', true], // window (1, 11] holds a@2 and this: 2 units
    ];
    for (const [t, key, allowed] of events) recorder.record(t, key, 1, allowed);
    const m = recorder.result();
    expect(m).toMatchObject({
      offered: 5,
      admitted: 4,
      denied: 1,
      falseAdmits: 1,
      falseDenials: 1,
      errorRate: 40,
      keys: 2,
    });
    expect(m.worstWindowRatio).toBe(1.5);
    expect(m.worstWindow).toEqual({ key: 'a', endMs: 2, units: 3 });
    expect(m.fairness).toBeCloseTo(0.5, 10); // shares a 4/4, b 0/1: (1 + 0)^2 / (2 * (1 + 0))
  });

  it('buckets offered and admitted units from the origin, padded to the duration', () => {
    const recorder = new MetricsRecorder({ limit: 5, windowMs: 10, bucketMs: 5, originMs: 0, minBuckets: 4 });
    recorder.record(1, 'a', 2, true);
    recorder.record(6, 'a', 3, false);
    expect(recorder.result().timeline).toEqual({
      originMs: 0,
      bucketMs: 5,
      offered: [2, 3, 0, 0],
      admitted: [2, 0, 0, 0],
    });
  });
});
