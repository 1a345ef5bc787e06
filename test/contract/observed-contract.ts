import { describe, expect, it, vi } from 'vitest';
import { ALGORITHMS, ManualClock, type Algorithm, type Decision, type PolicyInput } from '../../src/index.js';
import { OUTCOMES, type DecisionEvent, type ObservedOptions, type Outcome } from '../../src/core/decision-event.js';
import type { AsyncRateLimiter } from '../../src/core/limiter.js';

/**
 * Builds a fresh limiter whose time is `clock.now()`, taking `observed` (the events and
 * shadow options every limiter takes). Its decisions may carry fields of their own (a
 * store's `reason`): the tables compare the Decision's fields only.
 */
export type MakeObserved = (
  algorithm: Algorithm,
  policy: PolicyInput,
  clock: ManualClock,
  observed: ObservedOptions,
) => AsyncRateLimiter | Promise<AsyncRateLimiter>;

export interface ObservedContractOptions {
  /** Whether the limiter answers later (Redis, a cluster worker, a store): its events carry `durationNs`. */
  async: boolean;
  /** The algorithms it takes (default all five: the approximate limiter takes only `fixed-window`). */
  algorithms?: readonly Algorithm[];
  /** False while it takes no list of limits (the approximate limiter). */
  composite?: boolean;
}

/** Epoch-sized, a multiple of every window here. */
const EPOCH = 1_800_000_000_000;

/** The fields of a Decision, without a backend's own (`reason`, `error`). */
function plain(decision: Decision): Decision {
  const { allowed, limit, remaining, retryAfterMs, resetMs, limits, shadowDenied } = decision;
  return {
    allowed,
    limit,
    remaining,
    retryAfterMs,
    resetMs,
    ...(limits === undefined ? {} : { limits }),
    ...(shadowDenied === undefined ? {} : { shadowDenied }),
  };
}

/** A recorder of events, to pass as `onDecision` or to `addDecisionListener`. */
function recorder(): { events: DecisionEvent[]; listener: (event: DecisionEvent) => void } {
  const events: DecisionEvent[] = [];
  return { events, listener: (event) => void events.push(event) };
}

/** An outcome counter's counts by outcome name. */
function countsOf(counts: Float64Array): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((outcome, i) => [outcome, counts[i]])) as Record<Outcome, number>;
}

/** Counts of the outcomes named, zero for the rest. */
function outcomes(named: Partial<Record<Outcome, number>>): Record<Outcome, number> {
  return Object.fromEntries(OUTCOMES.map((outcome) => [outcome, named[outcome] ?? 0])) as Record<Outcome, number>;
}

interface EventRow {
  key: string;
  cost: number;
  outcome: Outcome;
  remaining: number;
  why: string;
}

/** Limit 3 per second, every request at one instant: the same numbers for every algorithm. */
const EVENT_ROWS: EventRow[] = [
  { key: 'k', cost: 1, outcome: 'allowed', remaining: 2, why: 'the first unit of three' },
  { key: 'k', cost: 2, outcome: 'allowed', remaining: 0, why: 'the rest of the capacity' },
  { key: 'k', cost: 1, outcome: 'denied', remaining: 0, why: 'spent: denied, nothing taken' },
  { key: 'k', cost: 0, outcome: 'allowed', remaining: 0, why: 'cost 0 only asks: still a decision, still an event' },
  { key: 'other', cost: 3, outcome: 'allowed', remaining: 0, why: 'another key has its own quota' },
  { key: 'fresh', cost: 4, outcome: 'denied', remaining: 3, why: 'over the capacity: never admissible' },
];

interface CompositeRow {
  at: number;
  cost: number;
  outcome: Outcome;
  limit: string;
  why: string;
}

/** 2 per second and 3 per minute, fixed windows: the event names the binding limit. */
const COMPOSITE_ROWS: CompositeRow[] = [
  {
    at: 0,
    cost: 1,
    outcome: 'allowed',
    limit: 'second',
    why: 'second has 1 left, minute 2: the least remaining binds',
  },
  { at: 0, cost: 1, outcome: 'allowed', limit: 'second', why: 'second 0 left, minute 1' },
  { at: 0, cost: 1, outcome: 'denied', limit: 'second', why: 'only the second denies' },
  { at: 1000, cost: 1, outcome: 'allowed', limit: 'minute', why: 'a new second: 1 left, the minute 0' },
  { at: 1000, cost: 1, outcome: 'denied', limit: 'minute', why: 'the second admits, the minute denies' },
  {
    at: 1000,
    cost: 5,
    outcome: 'denied',
    limit: 'second',
    why: 'both deny; the second never can: its wait is Infinity',
  },
];

/**
 * Decision events and shadow mode, the same on every limiter: stated through `consume`,
 * `allow`, `wait`, the listeners and a ManualClock, so one suite runs against every backend.
 * Keys are prefixed per test and run, so a shared server is fine.
 */
export function describeObservedContract(label: string, make: MakeObserved, options: ObservedContractOptions): void {
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  let tests = 0;
  const keyPrefix = () => `ratelab-observed:${label}:${run}:${++tests}:`;
  const algorithms = options.algorithms ?? ALGORITHMS;
  const durationNs = options.async ? expect.any(Number) : undefined;

  describe(`${label}: decision events`, () => {
    describe.each(algorithms.map((algorithm) => [algorithm]))('%s', (algorithm) => {
      it('tells onDecision of every decision once: key, cost, outcome, the limit and the decision as returned', async () => {
        const prefix = keyPrefix();
        const { events, listener } = recorder();
        const limiter = await make(algorithm, { limit: 3, windowMs: 1000 }, new ManualClock(EPOCH), {
          onDecision: listener,
          name: 'api',
        });
        for (const [i, row] of EVENT_ROWS.entries()) {
          const decision = await limiter.consume(prefix + row.key, row.cost);
          const why = `row ${i + 1}: ${row.key}, cost ${row.cost}: ${row.why}`;
          expect(events.length, why).toBe(i + 1);
          const event = events[i] as DecisionEvent;
          expect(event.decision, why).toBe(decision);
          expect({ ...event, decision: plain(event.decision) }, why).toEqual({
            key: prefix + row.key,
            cost: row.cost,
            outcome: row.outcome,
            algorithm,
            limiter: 'api',
            limit: '1s',
            decision: expect.objectContaining({ allowed: row.outcome === 'allowed', remaining: row.remaining }),
            durationNs,
            failure: undefined,
          });
          if (options.async) expect(event.durationNs, why).toBeGreaterThanOrEqual(0);
        }
      });

      it('allow emits too (cost 1), and a limiter without a name reports limiter undefined', async () => {
        const prefix = keyPrefix();
        const { events, listener } = recorder();
        const limiter = await make(algorithm, { limit: 1, windowMs: 1000 }, new ManualClock(EPOCH), {});
        limiter.addDecisionListener(listener);
        expect([await limiter.allow(`${prefix}k`), await limiter.allow(`${prefix}k`)]).toEqual([true, false]);
        expect(events.map((e) => [e.key, e.cost, e.outcome, e.limiter])).toEqual([
          [`${prefix}k`, 1, 'allowed', undefined],
          [`${prefix}k`, 1, 'denied', undefined],
        ]);
      });

      it('an outcome counter counts consume and allow by outcome, building events for its denied hook only', async () => {
        const prefix = keyPrefix();
        const limiter = await make(algorithm, { limit: 3, windowMs: 1000 }, new ManualClock(EPOCH), { name: 'api' });
        expect([limiter.name, limiter.enforce]).toEqual(['api', true]);
        const denials: DecisionEvent[] = [];
        const times: number[] = [];
        const hooked = {
          counts: new Float64Array(OUTCOMES.length),
          denied: (event: DecisionEvent) => void denials.push(event),
          timed: (ns: number) => void times.push(ns),
        };
        const bare = { counts: new Float64Array(OUTCOMES.length) };
        const remove = limiter.addOutcomeCounter(hooked);
        limiter.addOutcomeCounter(hooked);
        limiter.addOutcomeCounter(bare);
        for (const row of EVENT_ROWS) await limiter.consume(prefix + row.key, row.cost);
        // `other` took all 3 units: allow denies it; `new` is a fresh key.
        expect([await limiter.allow(`${prefix}other`), await limiter.allow(`${prefix}new`)]).toEqual([false, true]);
        const seen = outcomes({ allowed: 5, denied: 3 });
        expect(
          countsOf(hooked.counts),
          'the rows: 4 allowed, 2 denied; allow: 1 of each; added twice, counted once',
        ).toEqual(seen);
        expect(countsOf(bare.counts)).toEqual(seen);
        expect(
          denials.map((e) => [e.key, e.cost, e.outcome, e.limiter, e.decision.allowed]),
          'denied hears each denial, allow included, in full',
        ).toEqual([
          [`${prefix}k`, 1, 'denied', 'api', false],
          [`${prefix}fresh`, 4, 'denied', 'api', false],
          [`${prefix}other`, 1, 'denied', 'api', false],
        ]);
        expect(times.length, 'timed: every decision of an asynchronous limiter, none of a synchronous one').toBe(
          options.async ? 8 : 0,
        );
        remove();
        expect([await limiter.allow(`${prefix}k`), await limiter.allow(`${prefix}new`)]).toEqual([false, true]);
        expect(countsOf(hooked.counts), 'removed: counts no more').toEqual(seen);
        expect(countsOf(bare.counts), 'the other counter, alone and without hooks, counts allow bare').toEqual(
          outcomes({ allowed: 6, denied: 4 }),
        );
        expect(() => limiter.addOutcomeCounter({ counts: new Float64Array(2) })).toThrow(/counter: expected/);
        expect(() => limiter.addOutcomeCounter({ ...bare, denied: 1 as never })).toThrow(/counter\.denied/);
      });

      it('a counter in shadow mode counts shadow-denied, through allow as through consume', async () => {
        const prefix = keyPrefix();
        const limiter = await make(algorithm, { limit: 1, windowMs: 1000 }, new ManualClock(EPOCH), { enforce: false });
        expect([limiter.name, limiter.enforce]).toEqual([undefined, false]);
        const counter = { counts: new Float64Array(OUTCOMES.length) };
        limiter.addOutcomeCounter(counter);
        expect((await limiter.consume(`${prefix}k`)).allowed).toBe(true);
        expect((await limiter.consume(`${prefix}k`)).shadowDenied).toBe(true);
        expect(await limiter.allow(`${prefix}k`)).toBe(true);
        expect(countsOf(counter.counts)).toEqual(outcomes({ allowed: 1, 'shadow-denied': 2 }));
      });

      it('listeners: added once however often, removed by the function add returns, called in order', async () => {
        const prefix = keyPrefix();
        const calls: string[] = [];
        const first = (e: DecisionEvent) => void calls.push(`first ${e.cost}`);
        const second = (e: DecisionEvent) => void calls.push(`second ${e.cost}`);
        const limiter = await make(algorithm, { limit: 5, windowMs: 1000 }, new ManualClock(EPOCH), {
          onDecision: first,
        });
        let removeSecond = () => {};
        const steps: Array<{ act: () => unknown; calls: string[]; why: string }> = [
          { act: () => limiter.consume(`${prefix}k`, 1), calls: ['first 1'], why: 'onDecision alone' },
          {
            act: () => {
              limiter.addDecisionListener(second);
              removeSecond = limiter.addDecisionListener(second);
            },
            calls: [],
            why: 'adding tells no one',
          },
          {
            act: () => limiter.consume(`${prefix}k`, 2),
            calls: ['first 2', 'second 2'],
            why: 'second, once, after first',
          },
          {
            act: () => limiter.addDecisionListener(first)(),
            calls: [],
            why: 'onDecision added again (no-op), then removed',
          },
          { act: () => limiter.consume(`${prefix}k`, 0), calls: ['second 0'], why: 'only second is left' },
          { act: () => (removeSecond(), removeSecond()), calls: [], why: 'removing twice is harmless' },
          { act: () => limiter.consume(`${prefix}k`, 1), calls: [], why: 'no listener left' },
        ];
        for (const [i, step] of steps.entries()) {
          calls.length = 0;
          await step.act();
          expect(calls, `step ${i + 1}: ${step.why}`).toEqual(step.calls);
        }
      });

      it('a throwing listener changes no decision: onError hears of the first error once, listenerErrors counts each', async () => {
        const prefix = keyPrefix();
        const clock = new ManualClock(EPOCH);
        const boom = new Error('listener broke');
        const onError = vi.fn();
        const { events, listener } = recorder();
        const observed = await make(algorithm, { limit: 2, windowMs: 1000 }, clock, {
          onDecision: () => {
            throw boom;
          },
          onError,
        });
        observed.addDecisionListener(listener);
        const quiet = await make(algorithm, { limit: 2, windowMs: 1000 }, clock, {});
        for (let i = 1; i <= 4; i++) {
          const decision = await observed.consume(`${prefix}observed`);
          expect(plain(decision), `request ${i}: as without a listener`).toEqual(
            plain(await quiet.consume(`${prefix}quiet`)),
          );
          expect(observed.listenerErrors, `request ${i}: every throw counted`).toBe(i);
        }
        expect(onError.mock.calls).toEqual([[boom]]);
        expect(events.length, 'the listener after the throwing one is still told').toBe(4);
      });

      it('a listener whose promise rejects is counted like one that throws; nothing awaits it', async () => {
        const prefix = keyPrefix();
        const onError = vi.fn();
        let settled = 0;
        const limiter = await make(algorithm, { limit: 2, windowMs: 1000 }, new ManualClock(EPOCH), {
          onDecision: () => new Promise<void>(() => {}), // never settles: the decision does not wait for it
          onError,
        });
        limiter.addDecisionListener(() => Promise.reject(new Error('late')).finally(() => (settled += 1)));
        expect((await limiter.consume(`${prefix}k`)).allowed).toBe(true);
        await new Promise((done) => setImmediate(done));
        expect({ settled, listenerErrors: limiter.listenerErrors, calls: onError.mock.calls.length }).toEqual({
          settled: 1,
          listenerErrors: 1,
          calls: 1,
        });
      });
    });

    describe.skipIf(options.composite === false)('several limits', () => {
      it('the event names the binding limit: the one that denied, or of an admission the least remaining', async () => {
        const prefix = keyPrefix();
        const clock = new ManualClock(EPOCH);
        const { events, listener } = recorder();
        const limiter = await make(
          'fixed-window',
          [
            { name: 'second', limit: 2, windowMs: 1000 },
            { name: 'minute', limit: 3, windowMs: 60_000 },
          ],
          clock,
          { onDecision: listener },
        );
        for (const [i, row] of COMPOSITE_ROWS.entries()) {
          clock.set(EPOCH + row.at);
          const decision = await limiter.consume(`${prefix}k`, row.cost);
          const event = events[i] as DecisionEvent;
          expect(
            { outcome: event.outcome, limit: event.limit, same: event.decision === decision },
            `row ${i + 1}: at ${row.at} ms, cost ${row.cost}: ${row.why}`,
          ).toEqual({ outcome: row.outcome, limit: row.limit, same: true });
        }
      });
    });
  });

  describe(`${label}: shadow mode (enforce: false)`, () => {
    it('1,000 requests at a limit of 10: all admitted, 990 shadow-denied, exactly the ones an enforcing limiter denies', async () => {
      const prefix = keyPrefix();
      const algorithm = algorithms[algorithms.length - 1] as Algorithm;
      const clock = new ManualClock(EPOCH);
      const policy = { limit: 10, windowMs: 60_000 };
      const { events, listener } = recorder();
      const enforcing = await make(algorithm, policy, clock, {});
      const shadow = await make(algorithm, policy, clock, { enforce: false, onDecision: listener });
      const denied: number[] = [];
      const shadowDenied: number[] = [];
      for (let i = 0; i < 1000; i++) {
        clock.set(EPOCH + i); // 1 ms apart, all within the minute
        const [enforced, shadowed] = [
          await enforcing.consume(`${prefix}enforcing`),
          await shadow.consume(`${prefix}shadow`),
        ];
        if (!enforced.allowed) denied.push(i);
        if (shadowed.shadowDenied) shadowDenied.push(i);
        expect(shadowed.allowed, `request ${i + 1}: shadow admits every request`).toBe(true);
        expect({ ...plain(shadowed), allowed: enforced.allowed, shadowDenied: undefined }).toEqual({
          ...plain(enforced),
          shadowDenied: undefined,
        });
      }
      expect(denied.length).toBe(990);
      expect(shadowDenied).toEqual(denied);
      const counts = new Map<Outcome, number>();
      for (const event of events) counts.set(event.outcome, (counts.get(event.outcome) ?? 0) + 1);
      expect(Object.fromEntries(counts)).toEqual({ allowed: 10, 'shadow-denied': 990 });
    });

    describe.each(algorithms.map((algorithm) => [algorithm]))('%s', (algorithm) => {
      it('takes state exactly as enforcing on mixed traffic: every figure the same, only allowed and shadowDenied differ', async () => {
        const prefix = keyPrefix();
        const clock = new ManualClock(EPOCH);
        const policy = { limit: 4, windowMs: 1000, burst: 6 };
        const enforcing = await make(algorithm, policy, clock, {});
        const shadow = await make(algorithm, policy, clock, { enforce: false });
        let state = 7;
        let shadowDenials = 0;
        for (let i = 0; i < 300; i++) {
          state = (state * 48271) % 2147483647;
          clock.advance([0, 0, 1, 37, 233, 700][state % 6] as number);
          const key = `k${state % 3}`;
          const cost = state % 9; // up to 8: over every capacity now and then
          const enforced = await enforcing.consume(`${prefix}enforcing:${key}`, cost);
          const shadowed = await shadow.consume(`${prefix}shadow:${key}`, cost);
          const expected: Decision = enforced.allowed
            ? plain(enforced)
            : { ...plain(enforced), allowed: true, shadowDenied: true };
          expect(plain(shadowed), `request ${i + 1}: ${key}, cost ${cost}`).toEqual(expected);
          if (shadowed.shadowDenied) shadowDenials += 1;
        }
        expect(shadowDenials).toBeGreaterThan(30);
      });

      it('allow is true; wait never waits, even for a cost over the capacity: it resolves with the shadow decision', async () => {
        const prefix = keyPrefix();
        const clock = new ManualClock(EPOCH);
        const shadow = await make(algorithm, { limit: 2, windowMs: 1000 }, clock, { enforce: false });
        const steps: Array<{ act: () => Promise<unknown>; expect: unknown; why: string }> = [
          { act: async () => shadow.allow(`${prefix}k`), expect: true, why: 'admitted' },
          { act: async () => shadow.allow(`${prefix}k`), expect: true, why: 'admitted, the quota spent' },
          { act: async () => shadow.allow(`${prefix}k`), expect: true, why: 'would be denied: true in shadow' },
          {
            act: async () => plain(await shadow.wait(`${prefix}k`, 1, { maxWaitMs: 0 })),
            expect: expect.objectContaining({ allowed: true, shadowDenied: true, remaining: 0 }),
            why: 'would wait: resolves at once, within maxWaitMs 0',
          },
          {
            act: async () => plain(await shadow.wait(`${prefix}k`, 3)),
            expect: expect.objectContaining({ allowed: true, shadowDenied: true, retryAfterMs: Infinity }),
            why: 'a cost over the capacity: the shadow denial, not COST_OVER_CAPACITY',
          },
          {
            act: async () => (await shadow.consume(`${prefix}k`, 0)).remaining,
            expect: 0,
            why: 'none of it took anything: still spent, at the same instant',
          },
        ];
        for (const [i, step] of steps.entries())
          expect(await step.act(), `step ${i + 1}: ${step.why}`).toEqual(step.expect);
      });
    });

    it.each([
      [{ enforce: 'no' }, 'enforce'],
      [{ enforce: 0 }, 'enforce'],
      [{ name: '' }, 'name'],
      [{ name: 7 }, 'name'],
      [{ onDecision: 'log' }, 'onDecision'],
      [{ onError: {} }, 'onError'],
    ])('refuses %j with INVALID_ARGUMENT naming %s', async (observed, field) => {
      await expect(
        (async () =>
          make(algorithms[0] as Algorithm, { limit: 1, windowMs: 1000 }, new ManualClock(0), observed as never))(),
      ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', field, message: expect.stringContaining(field) });
    });
  });
}
