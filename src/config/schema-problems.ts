import type { z } from 'zod';
import { RatelabError, describeValue, escapeControl, type RatelabErrorCode } from '../core/errors.js';

/** One problem: where in the document (a path of keys) and what is wrong there. */
export interface SchemaProblem {
  path: (string | number)[];
  message: string;
}

interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  input?: unknown;
  keys?: string[];
  errors?: ZodIssueLike[][];
}

/**
 * Validates `data` with `schema` (issues must carry their input: the schema's messages
 * quote it) and returns the typed value, or every problem found, one plain problem per
 * zod issue. `union` words what a union expects (`expected "unlimited" or { ... }`) for when
 * the input fits none of its branches.
 */
export function validateWith<S extends z.ZodType>(
  schema: S,
  data: unknown,
  union?: string,
): { ok: true; value: z.output<S> } | { ok: false; problems: SchemaProblem[] } {
  const result = schema.safeParse(data, { reportInput: true, error: listFields });
  if (result.success) return { ok: true, value: result.data };
  return { ok: false, problems: result.error.issues.flatMap((issue) => explain(issue as ZodIssueLike, [], union)) };
}

const UNKNOWN_FIELD = 'unknown field';

/**
 * The message of an unknown field: the fields the object does take, from the schema that
 * raised the issue (so a typo is fixed without opening the docs). Other issues keep the
 * schema's own messages.
 */
function listFields(issue: { code?: string; inst?: unknown }): string | undefined {
  if (issue.code !== 'unrecognized_keys') return undefined;
  const shape = (issue.inst as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape === undefined ? UNKNOWN_FIELD : `${UNKNOWN_FIELD}; expected one of ${Object.keys(shape).join(', ')}`;
}

/**
 * Turns one zod issue into plain problems. For a union, the branch the user meant is the
 * one whose every complaint is about something inside the value (an object with a wrong
 * field was meant to be the object branch, not the literal one); only when no branch fits
 * that way is the union itself reported.
 */
function explain(issue: ZodIssueLike, prefix: (string | number)[], union: string | undefined): SchemaProblem[] {
  const path = [...prefix, ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))];
  if (issue.code === 'unrecognized_keys') {
    const message = issue.message.startsWith(UNKNOWN_FIELD) ? issue.message : UNKNOWN_FIELD;
    return (issue.keys ?? []).map((key) => ({ path: [...path, key], message }));
  }
  if (issue.code === 'invalid_union' && issue.input === undefined) return [{ path, message: 'missing' }];
  if (issue.code === 'invalid_union' && issue.errors && issue.errors.length > 0) {
    const meant = issue.errors.find((branch) => branch.length > 0 && branch.every((inner) => !mismatchAtRoot(inner)));
    if (meant && typeof issue.input === 'object' && issue.input !== null)
      return meant.flatMap((inner) => explain(inner, path, union));
    return [{ path, message: union === undefined ? issue.message : `${union}, got ${describeValue(issue.input)}` }];
  }
  if (issue.code === 'invalid_type' && issue.input === undefined) return [{ path, message: 'missing' }];
  return [{ path, message: issue.message }];
}

/** The value itself has the wrong type or is not the literal: this branch was not the one meant. */
function mismatchAtRoot(issue: ZodIssueLike): boolean {
  return (
    issue.path.length === 0 &&
    (issue.code === 'invalid_type' || issue.code === 'invalid_value' || issue.code === 'invalid_union')
  );
}

/**
 * One error for a whole document: the message is the first problem (and how many more
 * there are); `problems` holds them all, already formatted as `file:line: field: what`,
 * with control characters from the file (in keys, values, YAML excerpts) written out.
 */
export function problemsError(code: RatelabErrorCode, source: string, quoting: readonly string[]): RatelabError {
  const problems = quoting.map(escapeControl);
  const first = problems[0] ?? 'invalid';
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  return new RatelabError(code, `${first}${more}`, { field: source, problems });
}
