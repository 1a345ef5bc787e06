import { describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  ManualClock,
  type Algorithm,
  type Decision,
  type Policy,
  type PolicyInput,
} from '../../src/index.js';
import type { Consumer } from '../../src/core/limiter.js';
import { STEP_TABLES } from '../algorithms/step-tables.js';
import { runTable } from '../support/steps.js';
import { COMPOSITE_TABLES, expectedComposite } from './composite-tables.js';

/**
 * Builds a fresh limiter whose time is `clock.now()`: what the contract needs of it is
 * `consume`, sync or async. `policy` is one policy, or a list of limits (the composite tables).
 */
export type MakeSubject = (
  algorithm: Algorithm,
  policy: PolicyInput,
  clock: ManualClock,
) => Consumer | Promise<Consumer>;

/** PENDING-COMPOSITE: `composite: false` while a backend does not take a list of limits yet (removed once every backend does). */
export interface ContractOptions {
  composite?: boolean;
}

/** Epoch-sized, and a multiple of every window in the step tables, so they hold shifted by it. */
const EPOCH = 1_800_000_000_000;

/** Policies for the scripted sequences: a burst above the limit, and a window that divides nothing. */
const SCRIPT_POLICIES: Policy[] = [
  { limit: 4, windowMs: 1000, burst: 6 },
  { limit: 3, windowMs: 700 },
];

/** Steps between requests: repeats at one instant, 1 ms, and window-sized gaps. */
const GAPS = [0, 0, 0, 1, 1, 37, 233, 350, 699, 700, 1000, 1401];

/**
 * The behaviour every backend of every algorithm must show, stated through `consume` and a
 * ManualClock only, so the same suite runs against the memory limiters and against any
 * other store (a Redis limiter reading `now` from the clock). Each test uses keys of its
 * own (a prefix per test and per run), so a shared server is fine.
 */
export function describeLimiterContract(label: string, make: MakeSubject, options: ContractOptions = {}): void {
  const run = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  let tests = 0;
  const keyPrefix = () => `ratelab-contract:${label}:${run}:${++tests}:`;

  describe.skipIf(options.composite === false)(`${label}: several limits on one key, all or nothing`, () => {
    describe.each([
      ['clock at 0', 0],
      ['epoch-sized clock', EPOCH],
    ])('%s', (_name, base) => {
      it.each(COMPOSITE_TABLES.map((table) => [table.name, table] as const))('%s', async (_title, table) => {
        const clock = new ManualClock(base + (table.steps[0]?.at ?? 0));
        const subject = await make(table.algorithm, table.limits, clock);
        const key = `${keyPrefix()}k`;
        for (const [i, step] of table.steps.entries()) {
          clock.set(base + step.at);
          const decision = await subject.consume(key, step.cost);
          const { reason: _reason, ...fields } = decision as Decision & { reason?: string };
          expect(fields, `row ${i + 1}: at ${step.at} ms, cost ${step.cost}: ${step.why}`).toEqual(
            expectedComposite(table, step),
          );
        }
      });
    });
  });

  describe(`${label}: the limiter contract`, () => {
    describe.each(ALGORITHMS.map((algorithm) => [algorithm]))('%s', (algorithm) => {
      describe.each([
        ['clock at 0', 0],
        ['epoch-sized clock', EPOCH],
      ])('step tables, %s', (_name, base) => {
        it.each(STEP_TABLES[algorithm].map((table) => [table.name, table] as const))('%s', async (_title, table) => {
          const clock = new ManualClock(base + (table.steps[0]?.at ?? 0));
          await runTable(await make(algorithm, table.policy, clock), clock, table, base, keyPrefix());
        });
      });

      it('admits exactly the capacity at one instant, counting remaining down', async () => {
        const prefix = keyPrefix();
        const policy = { limit: 5, windowMs: 1000 };
        const subject = await make(algorithm, policy, new ManualClock(EPOCH));
        for (let remaining = 4; remaining >= 0; remaining--) {
          expect(await subject.consume(`${prefix}k`)).toMatchObject({
            allowed: true,
            limit: 5,
            remaining,
            retryAfterMs: 0,
          });
        }
        expect(await subject.consume(`${prefix}k`)).toMatchObject({ allowed: false, remaining: 0 });
      });

      it('keeps keys independent', async () => {
        const prefix = keyPrefix();
        const clock = new ManualClock(0);
        const subject = await make(algorithm, { limit: 3, windowMs: 1000 }, clock);
        clock.set(400);
        expect(await subject.consume(`${prefix}a`, 3)).toMatchObject({ allowed: true, remaining: 0 });
        const denied = await subject.consume(`${prefix}a`);
        expect(denied.allowed).toBe(false);
        expect(await subject.consume(`${prefix}b`, 0)).toEqual({
          allowed: true,
          limit: 3,
          remaining: 3,
          retryAfterMs: 0,
          resetMs: 0,
        });
        expect(await subject.consume(`${prefix}b`, 3)).toMatchObject({ allowed: true, remaining: 0 });
        expect(await subject.consume(`${prefix}a`)).toEqual(denied);
        expect(await subject.consume(`${prefix}c`, 2)).toMatchObject({ allowed: true, remaining: 1 });
      });

      // Keys are JS strings, compared as a Map compares them, whatever a store keeps them
      // in. UTF-8 has no bytes for a lone surrogate (a UTF-16 unit of U+D800-U+DFFF outside
      // a pair) and turns each into U+FFFD: a store keeping UTF-8 would make these one key.
      it('keeps apart keys that differ only in lone surrogates, U+FFFD and pairs', async () => {
        const prefix = keyPrefix();
        const subject = await make(algorithm, { limit: 1, windowMs: 60_000 }, new ManualClock(EPOCH));
        const keys = [
          '\uD800',
          '\uDBFF',
          '\uDC00',
          '\uDFFF',
          '\uFFFD',
          '\uD83D\uDE00',
          '\uDE00\uD83D',
          '\uD83D',
          '\uDE00',
          '\uD83D\uD83D',
          '?',
          '',
        ].map((tail) => `${prefix}user${tail}`);
        for (const key of keys)
          expect(await subject.consume(key), JSON.stringify(key)).toMatchObject({ allowed: true, remaining: 0 });
        for (const key of keys) expect((await subject.consume(key)).allowed, JSON.stringify(key)).toBe(false);
      });

      it('denies a cost above the capacity with retryAfterMs Infinity, taking nothing', async () => {
        const prefix = keyPrefix();
        const subject = await make(algorithm, { limit: 4, windowMs: 1000, burst: 6 }, new ManualClock(EPOCH + 250));
        const capacity = algorithm === 'token-bucket' || algorithm === 'gcra' ? 6 : 4;
        expect(await subject.consume(`${prefix}fresh`, capacity + 1)).toEqual({
          allowed: false,
          limit: capacity,
          remaining: capacity,
          retryAfterMs: Infinity,
          resetMs: 0,
        });
        expect(await subject.consume(`${prefix}fresh`, capacity)).toMatchObject({ allowed: true, remaining: 0 });
        expect(await subject.consume(`${prefix}used`, 1)).toMatchObject({ allowed: true, remaining: capacity - 1 });
        expect(await subject.consume(`${prefix}used`, 1_000_000)).toMatchObject({
          allowed: false,
          remaining: capacity - 1,
          retryAfterMs: Infinity,
        });
        expect(await subject.consume(`${prefix}used`, capacity - 1)).toMatchObject({ allowed: true, remaining: 0 });
      });

      describe.each(
        SCRIPT_POLICIES.map(
          (policy) =>
            [
              `${policy.limit} per ${policy.windowMs} ms${policy.burst ? `, burst ${policy.burst}` : ''}`,
              policy,
            ] as const,
        ),
      )('scripted traffic, %s', (_name, policy) => {
        it('a denied request or a query (cost 0) changes nothing', async () => {
          const prefix = keyPrefix();
          const clock = new ManualClock(EPOCH);
          const subject = await make(algorithm, policy, clock);
          for (let seed = 1; seed <= 12; seed++) {
            const plain = `${prefix}${seed}:plain`;
            const poked = `${prefix}${seed}:poked`;
            for (const { gap, cost } of script(seed, 24, policy.burst ?? policy.limit)) {
              clock.advance(gap);
              // Ask for one more than remains (always denied), then for far too much.
              const { remaining } = await subject.consume(poked, 0);
              expect((await subject.consume(poked, remaining + 1)).allowed).toBe(false);
              expect((await subject.consume(poked, 1_000_000)).allowed).toBe(false);
              expect(await subject.consume(poked, cost)).toEqual(await subject.consume(plain, cost));
            }
          }
        });

        it('retryAfterMs is exact: that long admits the same request, 1 ms less does not', async () => {
          const prefix = keyPrefix();
          const clock = new ManualClock(EPOCH);
          const subject = await make(algorithm, policy, clock);
          const capacity =
            algorithm === 'token-bucket' || algorithm === 'gcra' ? (policy.burst ?? policy.limit) : policy.limit;
          let checked = 0;
          for (let seed = 1; seed <= 12; seed++) {
            const twins = [`${prefix}${seed}:a`, `${prefix}${seed}:b`] as const;
            const steps = script(seed, 16, capacity);
            for (const [i, { gap, cost }] of steps.entries()) {
              clock.advance(gap);
              const decisions = [await subject.consume(twins[0], cost), await subject.consume(twins[1], cost)];
              expect(decisions[1]).toEqual(decisions[0]);
              const first = decisions[0] as Decision;
              if (first.allowed || first.retryAfterMs === Infinity || i < steps.length - 4) continue;
              const t = clock.now();
              expect(first.retryAfterMs).toBeGreaterThan(0);
              clock.set(t + first.retryAfterMs - 1);
              expect((await subject.consume(twins[1], cost)).allowed).toBe(false);
              clock.set(t + first.retryAfterMs);
              expect((await subject.consume(twins[0], cost)).allowed).toBe(true);
              checked += 1;
              break;
            }
          }
          expect(checked).toBeGreaterThan(3);
        });

        it('resetMs is exact: after it the quota is full, 1 ms before it is not', async () => {
          const prefix = keyPrefix();
          const clock = new ManualClock(EPOCH);
          const subject = await make(algorithm, policy, clock);
          for (let seed = 1; seed <= 12; seed++) {
            const twins = [`${prefix}${seed}:a`, `${prefix}${seed}:b`] as const;
            for (const { gap, cost } of script(seed, 8, policy.limit)) {
              clock.advance(gap);
              await subject.consume(twins[0], cost);
              await subject.consume(twins[1], cost);
            }
            const now = await subject.consume(twins[0], 0);
            const t = clock.now();
            if (now.resetMs === 0) {
              expect(now.remaining).toBe(now.limit);
              continue;
            }
            clock.set(t + now.resetMs - 1);
            expect((await subject.consume(twins[1], 0)).remaining).toBeLessThan(now.limit);
            clock.set(t + now.resetMs);
            expect(await subject.consume(twins[0], 0)).toEqual({
              allowed: true,
              limit: now.limit,
              remaining: now.limit,
              retryAfterMs: 0,
              resetMs: 0,
            });
          }
        });
      });
    });
  });
}

/** A deterministic request script (mulberry32 from `seed`): gaps in ms and costs up to `maxCost`. */
function script(seed: number, length: number, maxCost: number): { gap: number; cost: number }[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
  return Array.from({ length }, () => ({
    gap: GAPS[Math.floor(next() * GAPS.length)] as number,
    cost: Math.floor(next() * (maxCost + 1)),
  }));
}
