import { z } from 'zod';
import { describeValue } from '../errors.js';
import { validateWith, type SchemaProblem } from '../config/schema-problems.js';
import { duration, wholeNumber } from '../config/schema-fields.js';
import { ALGORITHMS, MAX_LIMIT } from '../policy.js';
import { SLIDING_LOG_MAX_LIMIT } from '../algorithms/sliding-log.js';

const limitedTier = z
  .strictObject({
    algorithm: z.enum(ALGORITHMS as [string, ...string[]], { error: (issue) => `expected one of ${ALGORITHMS.join(', ')}, got ${describeValue(issue.input)}` }),
    limit: wholeNumber(MAX_LIMIT),
    window: duration,
    burst: wholeNumber(MAX_LIMIT).optional(),
  })
  .superRefine((tier, ctx) => {
    if (tier.algorithm === 'sliding-log' && tier.limit > SLIDING_LOG_MAX_LIMIT) {
      ctx.addIssue({ code: 'custom', path: ['limit'], message: `the sliding log keeps one timestamp per request; at most ${SLIDING_LOG_MAX_LIMIT}, got ${tier.limit}` });
    }
  });

const tier = z.union([z.literal('unlimited'), limitedTier]);

const tierName = z.string({ error: (issue) => `expected a tier name, got ${describeValue(issue.input)}` });

/** The tiers file: `tiers`, `clients` (client id -> tier) and `default` (a tier name). */
export const tiersFileSchema = z
  .strictObject({
    tiers: z.record(z.string(), tier, { error: (issue) => `expected a map of tier name to tier, got ${describeValue(issue.input)}` }),
    clients: z.record(z.string(), tierName, { error: (issue) => `expected a map of client id to tier name, got ${describeValue(issue.input)}` }).default({}),
    default: tierName,
  })
  .superRefine((file, ctx) => {
    const names = Object.keys(file.tiers);
    if (names.length === 0) ctx.addIssue({ code: 'custom', path: ['tiers'], message: 'expected at least one tier' });
    const known = (name: string) => Object.hasOwn(file.tiers, name);
    if (!known(file.default)) ctx.addIssue({ code: 'custom', path: ['default'], message: `no tier named ${JSON.stringify(file.default)} (tiers: ${names.join(', ')})` });
    for (const [client, name] of Object.entries(file.clients)) {
      if (!known(name)) ctx.addIssue({ code: 'custom', path: ['clients', client], message: `no tier named ${JSON.stringify(name)} (tiers: ${names.join(', ')})` });
    }
  });

export type TiersFile = z.output<typeof tiersFileSchema>;

export type { SchemaProblem };

/** Validates parsed data; returns the typed file or every problem found. */
export function validateTiers(data: unknown): { ok: true; value: TiersFile } | { ok: false; problems: SchemaProblem[] } {
  return validateWith(tiersFileSchema, data, 'expected "unlimited" or { algorithm, limit, window, burst? }');
}
