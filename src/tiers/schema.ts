import { z } from 'zod';
import { parseDuration } from '../duration.js';
import { RatelabError, describeValue } from '../errors.js';
import { ALGORITHMS, MAX_LIMIT, windowTooLong, type Algorithm } from '../policy.js';
import { SLIDING_LOG_MAX_LIMIT } from '../algorithms/sliding-log.js';

const wholeNumber = (max: number) => {
  const message = (issue: { input?: unknown }) => `expected a positive integer up to ${max}, got ${describeValue(issue.input)}`;
  return z.number({ error: message }).int({ error: message }).min(1, { error: message }).max(max, { error: message });
};

/** `250ms`, `1s`, `1m`, `1h`, or a number of milliseconds; always whole positive ms. */
const duration = z.union([z.string(), z.number()], { error: (issue) => `expected a duration such as 250ms, 1s, 1m or 1h, got ${describeValue(issue.input)}` }).transform((value, ctx) => {
  try {
    return parseDuration(value);
  } catch {
    ctx.addIssue({ code: 'custom', message: `expected a duration such as 250ms, 1s, 1m or 1h, got ${describeValue(value)}` });
    return z.NEVER;
  }
});

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
    const bucket = tier.algorithm === 'token-bucket' || tier.algorithm === 'gcra';
    const tooLong = windowTooLong(tier.algorithm as Algorithm, { limit: tier.limit, windowMs: tier.window, capacity: bucket ? (tier.burst ?? tier.limit) : tier.limit });
    if (tooLong) ctx.addIssue({ code: 'custom', path: ['window'], message: tooLong });
  });

const tier = z.union([z.literal('unlimited'), limitedTier]);

const tierName = z.string({ error: (issue) => `expected a tier name, got ${describeValue(issue.input)}` });

/** The tiers file: `tiers`, `clients` (client id -> tier) and `default` (a tier name). */
export const tiersFileSchema = z.strictObject({
  tiers: z.record(z.string(), tier, { error: (issue) => `expected a map of tier name to tier, got ${describeValue(issue.input)}` }),
  clients: z.record(z.string(), tierName, { error: (issue) => `expected a map of client id to tier name, got ${describeValue(issue.input)}` }).default({}),
  default: tierName,
}, { error: (issue) => `expected a map with the keys tiers, clients and default, got ${issue.input === null || issue.input === undefined ? 'an empty file' : describeValue(issue.input)}` });

/**
 * Tier names that `default` and `clients` refer to but `tiers` lacks. Checked on the raw
 * data, apart from the schema, so these are reported even when a tier itself is invalid.
 */
function danglingReferences(data: unknown): SchemaProblem[] {
  if (typeof data !== 'object' || data === null) return [];
  const file = data as { tiers?: unknown; clients?: unknown; default?: unknown };
  if (typeof file.tiers !== 'object' || file.tiers === null || Array.isArray(file.tiers)) return [];
  const names = Object.keys(file.tiers);
  const problems: SchemaProblem[] = [];
  if (names.length === 0) problems.push({ path: ['tiers'], message: 'expected at least one tier' });
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

/** One problem: where in the document (a path of keys) and what is wrong there. */
export interface SchemaProblem {
  path: (string | number)[];
  message: string;
}

/** Validates parsed data; returns the typed file or every problem found. */
export function validateTiers(data: unknown): { ok: true; value: TiersFile } | { ok: false; problems: SchemaProblem[] } {
  const result = tiersFileSchema.safeParse(data, { reportInput: true });
  const problems = [...(result.success ? [] : result.error.issues.flatMap((issue) => explain(issue as ZodIssueLike, []))), ...danglingReferences(data)];
  if (result.success && problems.length === 0) return { ok: true, value: result.data };
  return { ok: false, problems };
}

interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  keys?: string[];
  errors?: ZodIssueLike[][];
}

/** Turns zod's issues into one plain problem each, preferring the branch a user meant. */
function explain(issue: ZodIssueLike, prefix: (string | number)[]): SchemaProblem[] {
  const path = [...prefix, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  if (issue.code === 'unrecognized_keys') {
    return (issue.keys ?? []).map((key) => ({ path: [...path, key], message: 'unknown field' }));
  }
  if (issue.code === 'invalid_union') {
    // A tier is `unlimited` or an object: an object was meant to be a limited tier.
    const objectBranch = issue.errors?.[1];
    if (typeof issue.input === 'object' && issue.input !== null && objectBranch) return objectBranch.flatMap((inner) => explain(inner, path));
    return [{ path, message: `expected "unlimited" or { algorithm, limit, window, burst? }, got ${describeValue(issue.input)}` }];
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return [{ path, message: 'missing' }];
  return [{ path, message: issue.message }];
}

/** Throws `INVALID_TIERS` listing `problems` (already formatted). */
export function tiersError(source: string, problems: string[]): RatelabError {
  const first = problems[0] ?? 'invalid';
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return new RatelabError('INVALID_TIERS', `${first}${more}`, { field: source, problems });
}
