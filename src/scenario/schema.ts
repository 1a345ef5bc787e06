import { z } from 'zod';
import { boundedNumber, duration, offset, rate, wholeNumber } from '../config/schema-fields.js';
import { validateWith, type SchemaProblem } from '../config/schema-problems.js';
import { MAX_TIME_MS } from '../core/duration.js';
import { describeValue } from '../core/errors.js';
import { LIMIT_NAME, MAX_LIMITS, defaultLimitName } from '../core/limit-list.js';
import { MAX_LIMIT } from '../core/policy.js';

/** Most keys one source may spread over (the Zipf alias table holds 12 B per key). */
const MAX_KEYS = 1_000_000;
/** Most clients of a retry source (each is one pending request at a time). */
const MAX_CLIENTS = 1_000_000;
const MAX_COUNT = 100_000_000;

const text = (what: string) =>
  z
    .string({ error: (issue) => `expected ${what}, got ${describeValue(issue.input)}` })
    .min(1, { error: `expected ${what}, got ""` });

const keySet = z.strictObject({
  count: wholeNumber(MAX_KEYS),
  prefix: text('a key prefix').optional(),
  pick: z
    .enum(['round-robin', 'uniform', 'zipf'], {
      error: (issue) => `expected round-robin, uniform or zipf, got ${describeValue(issue.input)}`,
    })
    .default('uniform'),
  exponent: boundedNumber(0, 10, 'a Zipf exponent').default(1),
});

const keys = z.union([text('a key name'), keySet], {
  error: (issue) => `expected a key name or { count, prefix?, pick?, exponent? }, got ${describeValue(issue.input)}`,
});

/** A source's label: what its requests are (a legitimate user, an attacker), reported per label. */
const label = z
  .string({ error: (issue) => `expected a label, got ${describeValue(issue.input)}` })
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$/, {
    error: (issue) =>
      `expected a label of up to 32 letters, digits, dots, dashes and underscores, got ${describeValue(issue.input)}`,
  })
  .describe(
    'What these requests are (e.g. user, attacker): rows report offered, admitted, false denials and false admits per label',
  );

const policyEntry = {
  limit: wholeNumber(MAX_LIMIT),
  window: duration,
  burst: wholeNumber(MAX_LIMIT).optional(),
};

/**
 * The policy: one `{ limit, window, burst? }`, or a list of them (a composite: a request is
 * admitted only when every limit admits it), each with an optional `name` for reports.
 */
const policy = z.union(
  [
    z.strictObject(policyEntry),
    z
      .array(
        z.strictObject({
          ...policyEntry,
          name: z
            .string({ error: (issue) => `expected a name, got ${describeValue(issue.input)}` })
            .regex(LIMIT_NAME, {
              error: (issue) =>
                `expected 1 to 64 letters, digits or ._:- (it goes into reports), got ${describeValue(issue.input)}`,
            })
            .optional()
            .describe('The limit in reports (default: its window, 1s, 1h)'),
        }),
      )
      .min(1, { error: 'expected at least one limit' })
      .max(MAX_LIMITS, { error: `expected at most ${MAX_LIMITS} limits` })
      .describe('Several limits at once (a composite): a request is admitted only when every limit admits it'),
  ],
  {
    error: (issue) => `expected { limit, window, burst? } or a list of them, got ${describeValue(issue.input)}`,
  },
);

/** Fields every source has. */
const common = {
  keys: keys.optional(),
  cost: wholeNumber(MAX_LIMIT).default(1),
  label: label.optional(),
};

/** The jitter variants of exponential backoff (Brooker, "Exponential Backoff And Jitter", AWS Architecture Blog, 2015). */
const JITTERS = ['none', 'full', 'equal', 'decorrelated'] as const;

const backoff = z
  .strictObject({
    base: duration.default(100),
    cap: duration.default(10_000),
    jitter: z
      .enum(JITTERS, {
        error: (issue) => `expected none, full, equal or decorrelated, got ${describeValue(issue.input)}`,
      })
      .default('full'),
  })
  .describe(
    'Exponential backoff (base doubling per retry up to cap; jitter none, full, equal or decorrelated), used when the limiter gives no Retry-After or honourRetryAfter is false',
  );
const span = { start: offset.default(0), end: offset.optional() };

const pareto = z.strictObject({
  alpha: boundedNumber(1.01, 10, 'a Pareto shape (alpha)'),
  min: duration,
});

const source = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('steady'), ...common, ...span, rate }),
    z.strictObject({ kind: z.literal('poisson'), ...common, ...span, rate }),
    z.strictObject({
      kind: z.literal('burst'),
      ...common,
      at: offset,
      count: wholeNumber(MAX_COUNT),
      spread: offset.default(0),
      every: duration.optional(),
      times: wholeNumber(MAX_COUNT).optional(),
    }),
    z.strictObject({ kind: z.literal('onoff'), ...common, ...span, rate, on: pareto, off: pareto }),
    z.strictObject({
      kind: z.literal('retry'),
      ...common,
      ...span,
      clients: wholeNumber(MAX_CLIENTS),
      ramp: offset.default(0),
      think: duration.default(1000),
      jitter: boundedNumber(0, 10, 'a jitter fraction of Retry-After').default(0),
      maxRetries: wholeNumber(1_000_000, 0).default(20),
      honourRetryAfter: z
        .boolean({ error: (issue) => `expected true or false, got ${describeValue(issue.input)}` })
        .default(true)
        .describe("Wait for the limiter's Retry-After (default true); false needs backoff"),
      backoff: backoff.optional(),
      client: z
        .literal('adaptive', { error: (issue) => `expected adaptive, got ${describeValue(issue.input)}` })
        .optional()
        .describe(
          "Adaptive clients: ratelab's adaptiveThrottle logic (one per source, keyed by the clients' keys) decides when each request goes - paused on Retry-After with jitter, restarted paced, AIMD on denials - so the server is asked only when the client expects a yes",
        ),
      throttle: z
        .strictObject({ limit: wholeNumber(MAX_LIMIT), window: duration })
        .optional()
        .describe(
          'Self-throttling clients: each request first waits, first come first served per key, for a slot of a client-side sliding log of limit per window (the limit the API publishes), so the server is asked only when the client expects a yes',
        ),
    }),
  ],
  {
    error: (issue) =>
      `expected kind: steady, poisson, burst, onoff or retry, got ${describeValue((issue.input as { kind?: unknown } | undefined)?.kind ?? issue.input)}`,
  },
);

/** A scenario file, as written (durations still in their units until parsed). */
export const scenarioFileSchema = z
  .strictObject(
    {
      name: z
        .string({ error: (issue) => `expected a name, got ${describeValue(issue.input)}` })
        .regex(/^[a-z0-9][a-z0-9-]*$/, {
          error: (issue) => `expected lower-case letters, digits and dashes, got ${describeValue(issue.input)}`,
        }),
      description: text('a one-line description').refine((value) => !value.includes('\n'), {
        error: 'expected one line',
      }),
      policy,
      duration,
      seed: wholeNumber(0xffff_ffff, 0),
      bucket: duration.optional(),
      sources: z
        .array(source, { error: (issue) => `expected a list of traffic sources, got ${describeValue(issue.input)}` })
        .min(1, { error: 'expected at least one traffic source' }),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? undefined
          : `expected a map with the keys name, description, policy, duration, seed, bucket and sources, got ${issue.input === null || issue.input === undefined ? 'an empty file' : describeValue(issue.input)}`,
    },
  )
  .superRefine((file, ctx) => {
    if (Array.isArray(file.policy)) {
      const names = file.policy.map((entry) => entry.name ?? defaultLimitName(entry.window));
      names.forEach((name, i) => {
        const first = names.indexOf(name);
        if (first !== i)
          ctx.addIssue({
            code: 'custom',
            path: ['policy', i, 'name'],
            message: `${JSON.stringify(name)} is already the name of policy[${first}]; give each limit its own name`,
          });
      });
    }
    file.sources.forEach((item, i) => {
      const end = 'end' in item && item.end !== undefined ? item.end : file.duration;
      if ('start' in item && item.start >= end)
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, 'start'],
          message: `start (${item.start} ms) must come before end (${end} ms)`,
        });
      if (item.kind === 'burst' && item.at >= file.duration)
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, 'at'],
          message: `at (${item.at} ms) must come before the scenario's duration (${file.duration} ms)`,
        });
      if (item.kind === 'burst' && item.times !== undefined && item.times > 1 && item.every === undefined)
        ctx.addIssue({ code: 'custom', path: ['sources', i, 'every'], message: 'missing (needed with times > 1)' });
      if (item.kind === 'retry' && !item.honourRetryAfter && item.backoff === undefined)
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, 'backoff'],
          message: 'missing (needed with honourRetryAfter: false: the clients must wait somehow)',
        });
      if (item.kind === 'retry' && item.client === 'adaptive')
        for (const field of ['throttle', 'backoff'] as const)
          if (item[field] !== undefined)
            ctx.addIssue({
              code: 'custom',
              path: ['sources', i, field],
              message: 'not with client: adaptive (the adaptive client paces and backs off by itself)',
            });
      if (item.kind === 'retry' && item.backoff !== undefined && item.backoff.cap < item.backoff.base)
        ctx.addIssue({
          code: 'custom',
          path: ['sources', i, 'backoff', 'cap'],
          message: `expected at least base (${item.backoff.base} ms), got ${item.backoff.cap} ms`,
        });
    });
    if (file.duration > MAX_TIME_MS)
      ctx.addIssue({
        code: 'custom',
        path: ['duration'],
        message: `expected at most ${MAX_TIME_MS} ms (100,000,000 days, the largest supported time), got ${file.duration} ms`,
      });
    if (file.bucket !== undefined && file.bucket > file.duration)
      ctx.addIssue({
        code: 'custom',
        path: ['bucket'],
        message: `expected at most the duration (${file.duration} ms), got ${file.bucket} ms`,
      });
  });

export type ScenarioFile = z.output<typeof scenarioFileSchema>;
export type SourceFile = ScenarioFile['sources'][number];

/** Validates parsed data; returns the typed file or every problem found. */
export function validateScenario(
  data: unknown,
): { ok: true; value: ScenarioFile } | { ok: false; problems: SchemaProblem[] } {
  return validateWith(scenarioFileSchema, data);
}
