import { z } from 'zod';
import { describeValue } from '../core/errors.js';
import { validateWith, type SchemaProblem } from '../config/schema-problems.js';
import { duration, wholeNumber } from '../config/schema-fields.js';
import {
  ALGORITHMS,
  MAX_LIMIT,
  capacityOf,
  hasBucket,
  limitTooLarge,
  windowTooLong,
  type Algorithm,
  type LimitSpec,
} from '../core/policy.js';
import { RatelabError } from '../core/errors.js';
import { LIMIT_NAME, MAX_LIMITS, checkLimitList } from '../core/limit-list.js';
import { isHeaderSafeName } from '../core/names.js';

const algorithm = z.enum(ALGORITHMS, {
  error: (issue) => `expected one of ${ALGORITHMS.join(', ')}, got ${describeValue(issue.input)}`,
});

/** One limit of a tier's `limits` list: a single tier's fields, the algorithm optional (the tier's), and a name. */
const limitEntry = z.strictObject({
  algorithm: algorithm.optional(),
  limit: wholeNumber(MAX_LIMIT),
  window: duration,
  burst: wholeNumber(MAX_LIMIT).optional(),
  name: z
    .string({ error: (issue) => `expected a name, got ${describeValue(issue.input)}` })
    .meta({ pattern: LIMIT_NAME.source, description: 'In headers and reports; default: the window (1s, 1d)' })
    .optional(),
});

const TIER_MODES = ['enforce', 'shadow'] as const;

/** `enforce` (default) or `shadow`: see `TierMode`. */
const mode = z
  .enum(TIER_MODES, {
    error: (issue) => `expected one of ${TIER_MODES.join(', ')}, got ${describeValue(issue.input)}`,
  })
  .meta({ description: 'shadow: decide and count, but let every request through (default enforce)' });

type LimitFields = { limit: number; window: number; burst?: number | undefined };

/**
 * A tier that limits: either the single fields (`algorithm`, `limit`, `window`, `burst`) or a
 * `limits` list of several, enforced all at once (the algorithm on the tier or per entry).
 */
const limitedTier = z
  .strictObject({
    algorithm: algorithm.optional(),
    limit: wholeNumber(MAX_LIMIT).optional(),
    window: duration.optional(),
    burst: wholeNumber(MAX_LIMIT).optional(),
    limits: z
      .array(limitEntry, { error: (issue) => `expected a list of limits, got ${describeValue(issue.input)}` })
      // Bounds for editors only: ratelab checks them with the core's rule (checkList), naming the entry.
      .meta({ minItems: 1, maxItems: MAX_LIMITS, description: 'Several limits, all enforced at once' })
      .optional(),
    mode: mode.optional(),
  })
  .superRefine((tier, ctx) => {
    if (tier.limits === undefined) {
      for (const field of ['algorithm', 'limit', 'window'] as const) {
        if (tier[field] === undefined) ctx.addIssue({ code: 'custom', path: [field], message: 'missing' });
      }
      if (tier.algorithm === undefined || tier.limit === undefined || tier.window === undefined) return;
      checkLimit(ctx, [], tier.algorithm, { limit: tier.limit, window: tier.window, burst: tier.burst });
      return;
    }
    for (const field of ['limit', 'window', 'burst'] as const) {
      if (tier[field] !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: [field],
          message: `not with limits: a tier has either limit, window and burst or a limits list (move it into an entry)`,
        });
      }
    }
    let complete = true;
    tier.limits.forEach((entry, i) => {
      const own = entry.algorithm ?? tier.algorithm;
      if (own === undefined) {
        complete = false;
        ctx.addIssue({
          code: 'custom',
          path: ['limits', i, 'algorithm'],
          message: 'missing (give the tier an algorithm, or each limit its own)',
        });
      } else if (!checkLimit(ctx, ['limits', i], own, entry)) complete = false;
    });
    if (complete) checkList(ctx, tier.algorithm, tier.limits);
  });

/** Checks one limit's fields for `algorithm`, adding issues under `path`; returns whether it is valid. */
function checkLimit(
  ctx: z.RefinementCtx,
  path: (string | number)[],
  algorithm: Algorithm,
  fields: LimitFields,
): boolean {
  const problems: [field: string, message: string][] = [];
  const tooLarge = limitTooLarge(algorithm, fields.limit);
  if (tooLarge) problems.push(['limit', tooLarge]);
  if (fields.burst !== undefined && !hasBucket(algorithm)) {
    problems.push([
      'burst',
      `${algorithm} ignores burst (only token-bucket and gcra have a bucket capacity); remove it or pick one of those`,
    ]);
  }
  const tooLong = windowTooLong(algorithm, {
    limit: fields.limit,
    windowMs: fields.window,
    capacity: capacityOf(algorithm, fields.limit, fields.burst),
  });
  if (tooLong) problems.push(['window', tooLong]);
  for (const [field, message] of problems) ctx.addIssue({ code: 'custom', path: [...path, field], message });
  return problems.length === 0;
}

/**
 * The rules of a list as a whole (at least one limit, at most MAX_LIMITS, names valid and
 * unique), from the core's own check, so a tiers file and `createLimiter` refuse the same
 * lists; its field (`limits[1].name`) becomes the issue's path.
 */
function checkList(ctx: z.RefinementCtx, algorithm: Algorithm | undefined, entries: readonly LimitEntry[]): void {
  try {
    // Without a tier algorithm every entry names its own (checked before): the first's is only a default.
    checkLimitList(algorithm ?? (entries[0]?.algorithm as Algorithm), entries.map(toLimitSpec), 'limits');
  } catch (error) {
    if (!(error instanceof RatelabError)) throw error;
    const field = error.field ?? 'limits';
    const path = field
      .split(/[.[\]]+/)
      .filter((part) => part !== '')
      .map((part) => (/^\d+$/.test(part) ? Number(part) : part));
    ctx.addIssue({ code: 'custom', path, message: error.message.replace(`${field}: `, '') });
  }
}

type LimitEntry = z.output<typeof limitEntry>;

/** An entry of a tier's `limits` as the core takes it (`window` in ms as `windowMs`). */
export function toLimitSpec(entry: LimitEntry): LimitSpec {
  return {
    limit: entry.limit,
    windowMs: entry.window,
    ...(entry.burst === undefined ? {} : { burst: entry.burst }),
    ...(entry.algorithm === undefined ? {} : { algorithm: entry.algorithm }),
    ...(entry.name === undefined ? {} : { name: entry.name }),
  };
}

const tier = z.union([z.literal('unlimited'), limitedTier]);

const tierName = z.string({ error: (issue) => `expected a tier name, got ${describeValue(issue.input)}` });

/** The tiers file: `tiers`, `clients` (client id -> tier) and `default` (a tier name). */
export const tiersFileSchema = z.strictObject(
  {
    tiers: z.record(z.string(), tier, {
      error: (issue) => `expected a map of tier name to tier, got ${describeValue(issue.input)}`,
    }),
    clients: z
      .record(z.string(), tierName, {
        error: (issue) => `expected a map of client id to tier name, got ${describeValue(issue.input)}`,
      })
      .default({}),
    default: tierName,
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? undefined
        : `expected a map with the keys tiers, clients and default, got ${issue.input === null || issue.input === undefined ? 'an empty file' : describeValue(issue.input)}`,
  },
);

/**
 * Tier names that cannot be sent in a header, and names that `default` and `clients` refer to but `tiers` lacks. Checked on the raw
 * data, apart from the schema, so these are reported even when a tier itself is invalid.
 */
function danglingReferences(data: unknown): SchemaProblem[] {
  if (typeof data !== 'object' || data === null) return [];
  const file = data as { tiers?: unknown; clients?: unknown; default?: unknown };
  if (typeof file.tiers !== 'object' || file.tiers === null || Array.isArray(file.tiers)) return [];
  const names = Object.keys(file.tiers);
  const problems: SchemaProblem[] = [];
  if (names.length === 0) problems.push({ path: ['tiers'], message: 'expected at least one tier' });
  // serve sends tier names in the RateLimit headers: the same rule here, so check-tiers agrees.
  for (const name of names.filter((name) => !isHeaderSafeName(name))) {
    problems.push({
      path: ['tiers', name],
      message: `tier name ${describeValue(name)}: expected printable ASCII (serve sends it in the RateLimit headers)`,
    });
  }
  const check = (name: unknown, path: (string | number)[]) => {
    if (typeof name === 'string' && names.length > 0 && !names.includes(name)) {
      problems.push({ path, message: `no tier named ${JSON.stringify(name)} (tiers: ${names.join(', ')})` });
    }
  };
  check(file.default, ['default']);
  if (typeof file.clients === 'object' && file.clients !== null) {
    for (const [client, name] of Object.entries(file.clients)) check(name, ['clients', client]);
  }
  return problems;
}

export type TiersFile = z.output<typeof tiersFileSchema>;

export type { SchemaProblem };

/** Validates parsed data; returns the typed file or every problem found. */
export function validateTiers(
  data: unknown,
): { ok: true; value: TiersFile } | { ok: false; problems: SchemaProblem[] } {
  const checked = validateWith(
    tiersFileSchema,
    data,
    'expected "unlimited", { algorithm, limit, window, burst? } or { algorithm?, limits: [...] }',
  );
  const dangling = danglingReferences(data);
  if (checked.ok && dangling.length === 0) return checked;
  return { ok: false, problems: [...(checked.ok ? [] : checked.problems), ...dangling] };
}
