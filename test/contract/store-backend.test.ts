// The backend seam (src/backend/store-limiter.ts), proven by a backend written here in one
// class: a Map pretending to be a remote store (every call answers a turn of the event loop
// later). It implements only LimiterStore (decide, reset, retryAfterMs); the fail modes,
// the deny cache, the waiters and the option checks come from the seam, and the whole
// limiter contract holds for it.
import { describe, expect, it } from 'vitest';
import { createLimitsMeter, type Meter } from '../../src/algorithms/index.js';
import {
  createStoreLimiter,
  type LimiterStore,
  type StoreContext,
  type StoreLimiterOptions,
  type StoreRateLimiter,
} from '../../src/backend/store-limiter.js';
import { ManualClock } from '../../src/core/clock.js';
import type { DecisionEvent } from '../../src/core/decision-event.js';
import { decisionOf, type DecideFn } from '../../src/core/decision.js';
import type { FailOverReason, ReasonedDecision } from '../../src/core/fail-over.js';
import { advanceKeyTime } from '../../src/core/key-time.js';
import type { Algorithm, PolicyInput } from '../../src/core/policy.js';
import { expectRatelabError } from '../support/errors.js';
import { describeLimiterContract } from './limiter-contract.js';
import { describeObservedContract } from './observed-contract.js';

type MapDecision = ReasonedDecision<'store' | 'deny-cache' | 'key-error' | FailOverReason>;

/** One turn of the event loop: the store's "network". */
const remote = () => new Promise<void>((done) => setImmediate(done));

/** Keys' meter state in a Map, decided on the seam's clock; `down` makes it unreachable, a key in `broken` unusable. */
class MapStore implements LimiterStore<MapDecision> {
  readonly retryAfterMs = 100;
  down = false;
  readonly broken = new Set<string>();
  /** Calls that reached the store (the deny cache answers without one). */
  calls = 0;
  private readonly rows = new Map<string, { slot: number; at: number }>();
  private readonly freeSlots: number[] = [];
  private readonly meter: Meter;
  private readonly decideRow: DecideFn;
  private slots = 0;
  private capacity = 0;

  constructor(private readonly context: StoreContext) {
    // Every limit's columns in one row per key, decided all or nothing (one limit: its own meter).
    this.meter = createLimitsMeter(context.policies);
    this.decideRow = decisionOf(this.meter, context.policies, context.limits);
  }

  async decide(key: string, cost: number): Promise<MapDecision> {
    const cached = this.context.cached(key, cost);
    if (cached) return cached;
    await remote();
    this.calls += 1;
    if (this.down) return this.context.unavailable(key, cost, 'the store is down');
    if (this.broken.has(key)) return this.context.keyError(key, cost, 'WRONGTYPE');
    const now = this.now();
    const row = this.rowOf(key, now);
    const decision: MapDecision = {
      ...this.decideRow(row.slot, row.at, cost),
      reason: 'store',
    };
    return this.context.decided(key, cost, decision);
  }

  async reset(key: string): Promise<boolean> {
    await remote();
    if (this.down) throw new Error('map store down');
    const row = this.rows.get(key);
    if (row === undefined) return false;
    this.rows.delete(key);
    this.meter.release?.(row.slot);
    this.freeSlots.push(row.slot);
    return true;
  }

  private now(): number {
    if (this.context.clock === undefined) throw new Error('the map store keeps no time of its own: pass a clock');
    return this.context.clock();
  }

  /** The key's row, brought forward to its time (a key's time never moves back). */
  private rowOf(key: string, now: number): { slot: number; at: number } {
    const row = this.rows.get(key);
    if (row !== undefined) {
      row.at = advanceKeyTime(this.meter, row.slot, row.at, now);
      return row;
    }
    const slot = this.freeSlots.pop() ?? this.slots++;
    if (slot >= this.capacity) this.meter.resize((this.capacity = Math.max(16, this.capacity * 2)));
    this.meter.init(slot, now);
    const added = { slot, at: now };
    this.rows.set(key, added);
    return added;
  }
}

/** A limiter on the seam over a fresh MapStore; `store` is that store, to reach into. */
function mapLimiter(
  algorithm: Algorithm,
  policy: PolicyInput,
  options: StoreLimiterOptions,
): { limiter: StoreRateLimiter<MapDecision>; store: MapStore } {
  let store: MapStore | undefined;
  const limiter = createStoreLimiter(algorithm, policy, options, (context) => (store = new MapStore(context)));
  return { limiter, store: store as MapStore };
}

// As for Redis (test/redis/contract.test.ts): the adapter only checks that the store decided
// and drops `reason`, which a plain Decision does not have.
describeLimiterContract('a Map on the backend seam', (algorithm, policy, clock) => {
  const { limiter } = mapLimiter(algorithm, policy, { clock, failMode: 'closed' });
  return {
    consume: async (key, cost) => {
      const { reason, ...decision } = await limiter.consume(key, cost);
      if (reason !== 'store') throw new Error(`the store did not decide: ${reason}`);
      return decision;
    },
  };
});

describeObservedContract(
  'a Map on the backend seam',
  (algorithm, policy, clock, observed) => mapLimiter(algorithm, policy, { clock, ...observed }).limiter,
  { async: true },
);

describe('what the seam gives a backend', () => {
  const POLICY = { limit: 2, windowMs: 1000 };

  it.each<{ failMode: 'open' | 'closed' | 'local'; reasons: string[]; allowed: boolean[]; why: string }>([
    {
      failMode: 'open',
      reasons: ['fail-open', 'fail-open', 'fail-open'],
      allowed: [true, true, true],
      why: 'admits while the store is away',
    },
    {
      failMode: 'closed',
      reasons: ['fail-closed', 'fail-closed', 'fail-closed'],
      allowed: [false, false, false],
      why: 'denies, to retry after retryAfterMs',
    },
    {
      failMode: 'local',
      reasons: ['local-fallback', 'local-fallback', 'local-fallback'],
      allowed: [true, false, false],
      why: 'this node’s share, limit 2 over 2 nodes',
    },
  ])('failMode $failMode: $why', async ({ failMode, reasons, allowed }) => {
    const { limiter, store } = mapLimiter('fixed-window', POLICY, {
      clock: new ManualClock(0),
      failMode,
      expectedNodes: 2,
    });
    store.down = true;
    const decisions = [await limiter.consume('k'), await limiter.consume('k'), await limiter.consume('k')];
    expect(decisions.map((d) => d.reason)).toEqual(reasons);
    expect(decisions.map((d) => d.allowed)).toEqual(allowed);
    expect(decisions.map((d) => d.error)).toEqual(['the store is down', 'the store is down', 'the store is down']);
    expect(limiter.failMode).toBe(failMode);
  });

  // Two limits, 4 per second and 8 per hour, over 2 nodes: each node's share is 2 per second
  // and 4 per hour, decided together by one memory limiter while the store is away.
  const COMPOSITE = [
    { limit: 4, windowMs: 1000 },
    { limit: 8, windowMs: 3_600_000 },
  ];

  it('failMode local decides two limits as a whole: a request one share denies takes from neither', async () => {
    const clock = new ManualClock(0);
    const { limiter, store } = mapLimiter('fixed-window', COMPOSITE, { clock, failMode: 'local', expectedNodes: 2 });
    store.down = true;
    const rows: Array<{ at: number; allowed: boolean; remaining: [number, number]; why: string }> = [
      { at: 0, allowed: true, remaining: [1, 3], why: 'both shares admit, both take' },
      { at: 0, allowed: true, remaining: [0, 2], why: 'the per-second share is spent' },
      { at: 0, allowed: false, remaining: [0, 2], why: 'the hour admits, the second denies: none takes' },
      { at: 1000, allowed: true, remaining: [1, 1], why: 'a new second' },
      { at: 1000, allowed: true, remaining: [0, 0], why: 'the hourly share is spent too' },
      { at: 2000, allowed: false, remaining: [2, 0], why: 'the second admits, the hour denies: none takes' },
    ];
    for (const [i, row] of rows.entries()) {
      clock.set(row.at);
      const decision = await limiter.consume('k');
      expect(
        { reason: decision.reason, allowed: decision.allowed, remaining: decision.limits?.map((l) => l.remaining) },
        `row ${i + 1}: ${row.why}`,
      ).toEqual({ reason: 'local-fallback', allowed: row.allowed, remaining: row.remaining });
      expect(decision.limits?.map((l) => [l.name, l.limit])).toEqual([
        ['1s', 2],
        ['1h', 4],
      ]);
    }
  });

  it.each<{
    failMode: 'open' | 'closed';
    cost: number;
    allowed: boolean;
    retryAfterMs: number;
    each: boolean[];
    why: string;
  }>([
    {
      failMode: 'open',
      cost: 1,
      allowed: true,
      retryAfterMs: 0,
      each: [true, true],
      why: 'admits, every limit answering',
    },
    {
      failMode: 'open',
      cost: 5,
      allowed: false,
      retryAfterMs: Infinity,
      each: [false, true],
      why: 'a cost over the per-second capacity is never admissible',
    },
    {
      failMode: 'closed',
      cost: 1,
      allowed: false,
      retryAfterMs: 100,
      each: [false, false],
      why: 'denies, every limit asking to retry after the store’s retryAfterMs',
    },
  ])('failMode $failMode on two limits, cost $cost: $why', async ({ failMode, cost, allowed, retryAfterMs, each }) => {
    const { limiter, store } = mapLimiter('gcra', COMPOSITE, { clock: new ManualClock(0), failMode });
    store.down = true;
    const decision = await limiter.consume('k', cost);
    expect({ allowed: decision.allowed, retryAfterMs: decision.retryAfterMs }).toEqual({ allowed, retryAfterMs });
    expect(decision.limits?.map((l) => [l.name, l.allowed])).toEqual([
      ['1s', each[0]],
      ['1h', each[1]],
    ]);
  });

  it('a key the store cannot use is decided by the fail mode, with reason key-error and the store’s error', async () => {
    const { limiter, store } = mapLimiter('gcra', POLICY, { clock: new ManualClock(0), failMode: 'closed' });
    store.broken.add('k');
    expect(await limiter.consume('k')).toMatchObject({
      allowed: false,
      reason: 'key-error',
      error: 'WRONGTYPE',
      retryAfterMs: 100,
    });
  });

  it('the deny cache answers a denial again without asking the store, until its wait has passed', async () => {
    const clock = new ManualClock(0);
    const { limiter, store } = mapLimiter('fixed-window', POLICY, { clock, denyCache: true });
    await limiter.consume('k', 2);
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, reason: 'store', retryAfterMs: 1000 });
    expect(await limiter.consume('k')).toMatchObject({ allowed: false, reason: 'deny-cache', retryAfterMs: 1000 });
    expect(store.calls).toBe(2);
    clock.advance(1000);
    expect(await limiter.consume('k')).toMatchObject({ allowed: true, reason: 'store' });
  });

  it.each<{ failMode: 'open' | 'closed'; rows: Array<[string, number, string, string | undefined, string]> }>([
    {
      failMode: 'closed',
      rows: [
        ['k', 2, 'allowed', undefined, 'the store decides'],
        ['k', 1, 'denied', undefined, 'the store denies'],
        ['k', 1, 'denied', undefined, 'a cached denial is a denial, no failure'],
        ['broken', 1, 'failed-closed', 'WRONGTYPE', 'a key error is decided by the fail mode, and said'],
        ['down', 1, 'failed-closed', 'the store is down', 'the store is away'],
      ],
    },
    {
      failMode: 'open',
      rows: [
        ['k', 2, 'allowed', undefined, 'the store decides'],
        ['broken', 1, 'failed-open', 'WRONGTYPE', 'a key error, admitted by the open fail mode'],
        ['down', 1, 'failed-open', 'the store is down', 'the store is away: admitted'],
        ['down', 3, 'denied', 'the store is down', 'over the capacity: never admissible, even open'],
      ],
    },
  ])('events, failMode $failMode: the outcome and failure say who decided', async ({ failMode, rows }) => {
    const events: DecisionEvent[] = [];
    const { limiter, store } = mapLimiter('fixed-window', POLICY, {
      clock: new ManualClock(0),
      failMode,
      denyCache: true,
      onDecision: (event) => void events.push(event),
    });
    store.broken.add('broken');
    for (const [i, [key, cost, outcome, failure, why]] of rows.entries()) {
      store.down = key === 'down';
      await limiter.consume(key, cost);
      const event = events[i] as DecisionEvent;
      expect({ outcome: event.outcome, failure: event.failure }, `row ${i + 1}: ${why}`).toEqual({ outcome, failure });
    }
  });

  it('allow, reset (forgetting the cached denial too) and wait, on the seam’s clock', async () => {
    const clock = new ManualClock(0);
    const { limiter } = mapLimiter('token-bucket', POLICY, { clock, denyCache: true });
    expect([await limiter.allow('k'), await limiter.allow('k'), await limiter.allow('k')]).toEqual([true, true, false]);
    expect(await limiter.reset('k')).toBe(true);
    expect(await limiter.reset('k')).toBe(false);
    expect(await limiter.allow('k')).toBe(true);
    await limiter.consume('k');
    const waited = limiter.wait('k');
    clock.advance(500); // the bucket refills one unit in 500 ms; the wait asks again then (plus up to 20% jitter)
    clock.advance(100);
    expect(await waited).toMatchObject({ allowed: true, reason: 'store' });
  });

  it('checks the options every backend shares before the store opens', () => {
    const open = () => {
      throw new Error('opened');
    };
    expectRatelabError(
      () => createStoreLimiter('gcra', POLICY, { failMode: 'local' }, open),
      'INVALID_ARGUMENT',
      'expectedNodes',
    );
    expectRatelabError(
      () => createStoreLimiter('gcra', POLICY, { failMode: 'sometimes' as never }, open),
      'INVALID_ARGUMENT',
      'failMode',
    );
    expectRatelabError(
      () => createStoreLimiter('gcra', POLICY, { denyCache: { maxKeys: 0 } }, open),
      'INVALID_ARGUMENT',
      'denyCache.maxKeys',
    );
    expectRatelabError(
      () => createStoreLimiter('gcra', { limit: 0, windowMs: 1000 }, {}, open),
      'INVALID_POLICY',
      'policy.limit',
    );
    expectRatelabError(() => createStoreLimiter('leaky' as never, POLICY, {}, open), 'UNKNOWN_ALGORITHM');
  });

  it('rejects a bad cost without asking the store', async () => {
    const { limiter, store } = mapLimiter('gcra', POLICY, { clock: new ManualClock(0) });
    await expect(limiter.consume('k', -1)).rejects.toMatchObject({ code: 'INVALID_COST' });
    expect(store.calls).toBe(0);
  });
});
