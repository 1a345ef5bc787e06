import fc from 'fast-check';
import {
  ALGORITHMS,
  ManualClock,
  createLimiter,
  type Algorithm,
  type Decision,
  type LimiterOptions,
  type LimitSpec,
  type Policy,
  type PolicyInput,
} from '../../src/index.js';

/** A request: at `at` ms, `cost` units for `key`. */
export interface Arrival {
  at: number;
  cost: number;
  key: string;
}

/** Small limits and windows (whole ms) so that edges, ties and refills are hit often. */
export const policyArb: fc.Arbitrary<Policy> = fc.record(
  {
    limit: fc.integer({ min: 1, max: 5 }),
    windowMs: fc.integer({ min: 1, max: 16 }),
    burst: fc.integer({ min: 1, max: 6 }),
  },
  { requiredKeys: ['limit', 'windowMs'] },
);

/** Two or three limits, each with its own algorithm and a name of its own (`l0`, `l1`, ...). */
export const limitListArb: fc.Arbitrary<LimitSpec[]> = fc
  .array(fc.tuple(fc.constantFrom(...ALGORITHMS), policyArb), { minLength: 2, maxLength: 3 })
  .map((entries) => entries.map(([algorithm, policy], i) => ({ ...policy, algorithm, name: `l${i}` })));

/** Mostly unit costs; sometimes 0 (a query) or up to 7 (above every capacity here). */
export const costArb: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.constant(1), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 7 }), weight: 1 },
);

/** Gaps between requests: many ties, many short steps, some longer than any window. */
export const gapArb: fc.Arbitrary<number> = fc.oneof(
  { arbitrary: fc.constant(0), weight: 2 },
  { arbitrary: fc.integer({ min: 1, max: 6 }), weight: 3 },
  { arbitrary: fc.integer({ min: 0, max: 60 }), weight: 1 },
);

/**
 * Arrivals in time order from a start time (sometimes negative, sometimes epoch-sized),
 * with costs from `cost`, spread over `keys`.
 */
export function arrivalsArb(
  options: { cost?: fc.Arbitrary<number>; keys?: string[]; maxLength?: number } = {},
): fc.Arbitrary<Arrival[]> {
  const keys = options.keys ?? ['k'];
  const start = fc.oneof(
    fc.integer({ min: -50, max: 50 }),
    fc.constant(1_800_000_000_000),
    fc.integer({ min: 1_700_000_000_000, max: 1_800_000_000_000 }),
  );
  const step = fc.record({ gap: gapArb, cost: options.cost ?? costArb, key: fc.constantFrom(...keys) });
  return fc.tuple(start, fc.array(step, { minLength: 1, maxLength: options.maxLength ?? 30 })).map(([first, steps]) => {
    let at = first;
    return steps.map(({ gap, cost, key }) => {
      at += gap;
      return { at, cost, key };
    });
  });
}

/** Plays `arrivals` through a fresh in-memory limiter on a ManualClock; returns every decision. */
export function replay(
  algorithm: Algorithm,
  policy: PolicyInput,
  arrivals: readonly Arrival[],
  options: Omit<LimiterOptions, 'clock'> = {},
): Decision[] {
  const clock = new ManualClock(arrivals[0]?.at ?? 0);
  const limiter = createLimiter(algorithm, policy, { ...options, clock });
  return arrivals.map(({ at, cost, key }) => {
    clock.set(at);
    return limiter.consume(key, cost);
  });
}
