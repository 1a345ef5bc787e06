import type { Algorithm, LimitDecision, LimitSpec } from '../../src/index.js';

/** One row of a composite table: at `at`, `cost` units; the whole decision, each limit's own answer with it. */
export interface CompositeStep {
  at: number;
  cost: number;
  allowed: boolean;
  /** The binding limit's capacity and resetMs, the least remaining, the longest wait. */
  limit: number;
  remaining: number;
  retryAfterMs: number;
  resetMs: number;
  /** Each limit's own [allowed, remaining, retryAfterMs, resetMs], in order. */
  parts: Array<[allowed: boolean, remaining: number, retryAfterMs: number, resetMs: number]>;
  why: string;
}

/** A named sequence of composite steps on one key of a fresh limiter of `algorithm` over `limits`. */
export interface CompositeTable {
  name: string;
  algorithm: Algorithm;
  limits: LimitSpec[];
  steps: CompositeStep[];
}

const row = (
  at: number,
  cost: number,
  allowed: boolean,
  [limit, remaining, retryAfterMs, resetMs]: [number, number, number, number],
  parts: CompositeStep['parts'],
  why: string,
): CompositeStep => ({ at, cost, allowed, limit, remaining, retryAfterMs, resetMs, parts, why });

const HOUR = 3_600_000;

/**
 * Two buckets on a key, 2 per second and 3 per minute: packed in one value on Redis, where
 * each answers whether it admitted and the units it holds in use, and the client works out
 * the rest. Every figure of both, admitted and denied, cost within and over capacity.
 */
const TWO_BUCKETS: CompositeTable = {
  name: 'two token buckets, 2 per second and 3 per minute',
  algorithm: 'token-bucket',
  limits: [
    { name: 'second', limit: 2, windowMs: 1000 },
    { name: 'minute', limit: 3, windowMs: 60_000 },
  ],
  steps: [
    row(
      0,
      1,
      true,
      [2, 1, 0, 500],
      [
        [true, 1, 0, 500],
        [true, 2, 0, 20_000],
      ],
      "both take it; the second's binds (1 left)",
    ),
    row(
      0,
      1,
      true,
      [2, 0, 0, 1000],
      [
        [true, 0, 0, 1000],
        [true, 1, 0, 40_000],
      ],
      "the second's bucket is empty",
    ),
    row(
      250,
      1,
      false,
      [2, 0, 250, 750],
      [
        [false, 0, 250, 750],
        [true, 1, 0, 39_750],
      ],
      "the minute's would admit, the second's has half a token: neither takes it",
    ),
    row(
      500,
      1,
      true,
      [2, 0, 0, 1000],
      [
        [true, 0, 0, 1000],
        [true, 0, 0, 59_500],
      ],
      "the minute's had 1 left, not 0: the denial took nothing; both at 0, the first listed binds",
    ),
    row(
      1000,
      1,
      false,
      [3, 0, 19_000, 59_000],
      [
        [true, 1, 0, 500],
        [false, 0, 19_000, 59_000],
      ],
      "the second's would admit; the wait is the minute's",
    ),
    row(
      1000,
      3,
      false,
      [2, 0, Infinity, 500],
      [
        [false, 1, Infinity, 500],
        [false, 0, 59_000, 59_000],
      ],
      "cost 3 > the second's capacity: never, whatever the minute's wait",
    ),
  ],
};

/**
 * Buckets whose refill is no whole number of ms a token (3 per second, 7 per minute): their
 * waits and resets round up to the next whole ms.
 */
const UNEVEN_BUCKETS: CompositeTable = {
  name: 'two token buckets, 3 per second and 7 per minute: waits rounded up',
  algorithm: 'token-bucket',
  limits: [
    { name: 'second', limit: 3, windowMs: 1000 },
    { name: 'minute', limit: 7, windowMs: 60_000 },
  ],
  steps: [
    row(
      0,
      1,
      true,
      [3, 2, 0, 334],
      [
        [true, 2, 0, 334],
        [true, 6, 0, 8572],
      ],
      'a token back in 333.3 ms and 8571.4 ms: 334 and 8572',
    ),
    row(
      0,
      3,
      false,
      [3, 2, 334, 334],
      [
        [false, 2, 334, 334],
        [true, 6, 0, 8572],
      ],
      "3 when the second's holds 2: the third token in 333.3 ms; 2 still fit now, as one limit would say",
    ),
    row(
      100,
      2,
      true,
      [3, 0, 0, 900],
      [
        [true, 0, 0, 900],
        [true, 4, 0, 25_615],
      ],
      "the second's refilled 0.3 of a token; the minute's full in 25614.3 ms",
    ),
  ],
};

/**
 * Several limits on one key, all or nothing: a request is admitted only if every limit
 * admits it, a denial takes nothing from any limit, the binding limit gives `limit` and
 * `resetMs` (admitted: least remaining; denied: longest wait; ties: the first listed).
 */
export const COMPOSITE_TABLES: CompositeTable[] = [
  {
    name: 'fixed windows, 2 per second and 5 per hour',
    algorithm: 'fixed-window',
    limits: [
      { name: 'burst', limit: 2, windowMs: 1000 },
      { name: 'hourly', limit: 5, windowMs: HOUR },
    ],
    steps: [
      row(
        0,
        1,
        true,
        [2, 1, 0, 1000],
        [
          [true, 1, 0, 1000],
          [true, 4, 0, HOUR],
        ],
        'both take it; burst binds (1 left)',
      ),
      row(
        0,
        1,
        true,
        [2, 0, 0, 1000],
        [
          [true, 0, 0, 1000],
          [true, 3, 0, HOUR],
        ],
        'burst is spent',
      ),
      row(
        500,
        1,
        false,
        [2, 0, 500, 500],
        [
          [false, 0, 500, 500],
          [true, 3, 0, HOUR - 500],
        ],
        'hourly alone would admit, burst denies: neither takes it',
      ),
      row(
        1000,
        2,
        true,
        [2, 0, 0, 1000],
        [
          [true, 0, 0, 1000],
          [true, 1, 0, HOUR - 1000],
        ],
        'hourly has 1 left, not 0: the denied request took nothing',
      ),
      row(
        2000,
        1,
        true,
        [5, 0, 0, HOUR - 2000],
        [
          [true, 1, 0, 1000],
          [true, 0, 0, HOUR - 2000],
        ],
        'hourly binds now',
      ),
      row(
        2000,
        1,
        false,
        [5, 0, HOUR - 2000, HOUR - 2000],
        [
          [true, 1, 0, 1000],
          [false, 0, HOUR - 2000, HOUR - 2000],
        ],
        'burst would admit; the wait is the hour’s',
      ),
      row(
        3000,
        3,
        false,
        [2, 0, Infinity, 0],
        [
          [false, 2, Infinity, 0],
          [false, 0, HOUR - 3000, HOUR - 3000],
        ],
        'cost 3 > burst’s capacity: never, whatever the hourly wait',
      ),
    ],
  },
  {
    name: 'a token bucket (1 per second, burst 2) and a sliding log of its own (3 per minute)',
    algorithm: 'token-bucket',
    limits: [
      { limit: 1, windowMs: 1000, burst: 2 },
      { algorithm: 'sliding-log', limit: 3, windowMs: 60_000 },
    ],
    steps: [
      row(
        0,
        2,
        true,
        [2, 0, 0, 2000],
        [
          [true, 0, 0, 2000],
          [true, 1, 0, 60_000],
        ],
        'the burst at once; the bucket binds',
      ),
      row(
        1000,
        1,
        true,
        [2, 0, 0, 2000],
        [
          [true, 0, 0, 2000],
          [true, 0, 0, 60_000],
        ],
        'both at 0: the first listed binds',
      ),
      row(
        3000,
        1,
        false,
        [3, 0, 57_000, 58_000],
        [
          [true, 2, 0, 0],
          [false, 0, 57_000, 58_000],
        ],
        'the bucket is full again; the log has 3 in its minute until 60000',
      ),
      row(
        60_000,
        2,
        true,
        [2, 0, 0, 2000],
        [
          [true, 0, 0, 2000],
          [true, 0, 0, 60_000],
        ],
        'the log holds 1 (at 1000), not 2: the denial at 3000 took nothing',
      ),
    ],
  },
  TWO_BUCKETS,
  UNEVEN_BUCKETS,
  // GCRA decides as the token bucket with the same limits does, step for step.
  { ...TWO_BUCKETS, name: 'two GCRA limits, 2 per second and 3 per minute', algorithm: 'gcra' },
  {
    ...TWO_BUCKETS,
    name: 'GCRA, 2 per second, and a token bucket, 3 per minute',
    algorithm: 'gcra',
    limits: [
      TWO_BUCKETS.limits[0] as LimitSpec,
      { ...(TWO_BUCKETS.limits[1] as LimitSpec), algorithm: 'token-bucket' },
    ],
  },
];

/** The names `limits` go by: their own, else their window (`1s`, `1m`). */
export function namesOf(table: CompositeTable): string[] {
  return table.limits.map(
    (spec) => spec.name ?? (spec.windowMs === 1000 ? '1s' : spec.windowMs === 60_000 ? '1m' : '1h'),
  );
}

/** The full decision a row expects. */
export function expectedComposite(table: CompositeTable, step: CompositeStep) {
  const names = namesOf(table);
  const limits: LimitDecision[] = step.parts.map(([allowed, remaining, retryAfterMs, resetMs], i) => ({
    name: names[i] as string,
    allowed,
    limit: (table.limits[i] as LimitSpec).burst ?? (table.limits[i] as LimitSpec).limit,
    remaining,
    retryAfterMs,
    resetMs,
  }));
  const { limit, remaining, retryAfterMs, resetMs, allowed } = step;
  return { allowed, limit, remaining, retryAfterMs, resetMs, limits };
}
