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
} from '../core/policy.js';
import { isHeaderSafeName } from '../core/names.js';

const limitedTier = z
  .strictObject({
    algorithm: z.enum(ALGORITHMS, {
      error: (issue) => `expected one of ${ALGORITHMS.join(', ')}, got ${describeValue(issue.input)}`,
    }),
    limit: wholeNumber(MAX_LIMIT),
    window: duration,
    burst: wholeNumber(MAX_LIMIT).optional(),
  })
  .superRefine((tier, ctx) => {
    const algorithm = tier.algorithm as Algorithm;
    const tooLarge = limitTooLarge(algorithm, tier.limit);
    if (tooLarge) ctx.addIssue({ code: 'custom', path: ['limit'], message: tooLarge });
    if (tier.burst !== undefined && !hasBucket(algorithm)) {
      ctx.addIssue({
        code: 'custom',
        path: ['burst'],
        message: `${algorithm} ignores burst (only token-bucket and gcra have a bucket capacity); remove it or pick one of those`,
      });
    }
    const tooLong = windowTooLong(algorithm, {
      limit: tier.limit,
      windowMs: tier.window,
      capacity: capacityOf(algorithm, tier.limit, tier.burst),
    });
    if (tooLong) ctx.addIssue({ code: 'custom', path: ['window'], message: tooLong });
  });

const tier = z.union([z.literal('unlimited'), limitedTier]);

const tierName = z.string({ error: (issue) => `expected a tier name, got ${describeValue(issue.input)}` });

/** The tiers file: `tiers`, `clients` (client id -> tier) and `default` (a tier name). */
const tiersFileSchema = z.strictObject(
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
  const checked = validateWith(tiersFileSchema, data, 'expected "unlimited" or { algorithm, limit, window, burst? }');
  const dangling = danglingReferences(data);
  if (checked.ok && dangling.length === 0) return checked;
  return { ok: false, problems: [...(checked.ok ? [] : checked.problems), ...dangling] };
}
