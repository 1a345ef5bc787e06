import { z } from 'zod';
import { parseDuration } from '../duration.js';
import { RatelabError, describeValue } from '../errors.js';
import { ALGORITHMS, MAX_LIMIT } from '../policy.js';
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
  });

const tier = z.union([z.literal('unlimited'), limitedTier]);

const tierName = z.string({ error: (issue) => `expected a tier name, got ${describeValue(issue.input)}` });

const fileError = (issue: { code?: string; input?: unknown }) =>
  issue.code === 'invalid_type' ? `expected a map with keys tiers, clients and default, got ${describeValue(issue.input)}` : undefined;

/** The tiers file: `tiers`, `clients` (client id -> tier) and `default` (a tier name). */
export const tiersFileSchema = z
  .strictObject(
    {
      tiers: z.record(z.string(), tier, { error: (issue) => `expected a map of tier name to tier, got ${describeValue(issue.input)}` }),
      clients: z.record(z.string(), tierName, { error: (issue) => `expected a map of client id to tier name, got ${describeValue(issue.input)}` }).default({}),
      default: tierName,
    },
    { error: fileError },
  )
  // Runs even when other parts of the file are invalid (zod skips refinements after an
  // issue by default), so that a bad limit and a default naming no tier are reported
  // together; so it trusts only what it checks itself.
  .superRefine((file, ctx) => checkTierNames(file, ctx), { when: () => true });

/** `default` and every `clients` entry must name a tier of the file. */
function checkTierNames(file: unknown, ctx: z.RefinementCtx): void {
  const { tiers, clients, default: fallback } = (isMap(file) ? file : {}) as Record<string, unknown>;
  if (!isMap(tiers)) return;
  const names = Object.keys(tiers);
  if (names.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['tiers'], message: 'expected at least one tier' });
    return;
  }
  const unknownTier = (name: unknown): name is string => typeof name === 'string' && !Object.hasOwn(tiers, name);
  const message = (name: string) => `no tier named ${JSON.stringify(name)} (tiers: ${names.join(', ')})`;
  if (unknownTier(fallback)) ctx.addIssue({ code: 'custom', path: ['default'], message: message(fallback) });
  if (!isMap(clients)) return;
  for (const [client, name] of Object.entries(clients)) {
    if (unknownTier(name)) ctx.addIssue({ code: 'custom', path: ['clients', client], message: message(name) });
  }
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => explain(issue as ZodIssueLike, [])) };
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
