/**
 * Stable error codes. Callers (and the CLI's exit codes) switch on these, so a code is
 * never renamed once released; the message may be reworded. Each is documented, with
 * what raises it, its exit code and what to do, in docs/errors.md (a test keeps it whole).
 */
export type RatelabErrorCode =
  | 'INVALID_POLICY'
  | 'INVALID_COST'
  | 'INVALID_KEY'
  | 'INVALID_DECISION'
  | 'REDIS_KEY_ERROR'
  | 'INVALID_ARGUMENT'
  | 'WAIT_TOO_LONG'
  | 'REJECTED_LOCALLY'
  | 'COST_OVER_CAPACITY'
  | 'UNKNOWN_ALGORITHM'
  | 'POLICY_TOO_LARGE'
  | 'INVALID_DURATION'
  | 'INVALID_TIERS'
  | 'UNKNOWN_TIER'
  | 'FILE_NOT_FOUND'
  | 'FILE_UNREADABLE'
  | 'INVALID_SCENARIO'
  | 'UNKNOWN_SCENARIO'
  | 'INVALID_TRACE'
  | 'TOO_MANY_ARRIVALS'
  | 'INVALID_BASELINE'
  | 'INVALID_LIMITER_MODULE'
  | 'LIMITER_TIMEOUT'
  | 'REDIS_UNAVAILABLE'
  | 'MISSING_DEPENDENCY'
  | 'LISTEN_FAILED'
  | 'REMOTE_TARGET'
  | 'ENDPOINT_UNAVAILABLE'
  | 'SHARED_TABLE_FULL'
  | 'OUTPUT_FAILED';

/**
 * The one error type ratelab throws on purpose. `code` is stable; `field` names the
 * offending input (`policy.limit`, `tiers.free.window`, a file path) when there is one.
 */
export class RatelabError extends Error {
  readonly code: RatelabErrorCode;
  readonly field: string | undefined;
  /** Every problem found, for inputs that are validated as a whole (tiers files, scenarios). */
  readonly problems: readonly string[];

  constructor(
    code: RatelabErrorCode,
    message: string,
    options: { field?: string; problems?: readonly string[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'RatelabError';
    this.code = code;
    this.field = options.field;
    this.problems = options.problems ?? [message];
  }
}

/** Renders a value for an error message: short, and unambiguous about its type. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return escapeControl(JSON.stringify(value));
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined)
    return String(value);
  if (Array.isArray(value)) return 'a list';
  return `a ${typeof value}`;
}

/** C0 controls, DEL and C1 controls (CSI, OSC...): what a terminal or a header would act on. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * `text` with every control character written out (`\r`, `\x1b`, `\x9b`), so a message
 * quoting input from a file or a flag cannot move the cursor, retitle the terminal or
 * split a line. Other text, non-ASCII letters included, is unchanged.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => NAMED[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
