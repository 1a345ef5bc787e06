import type { RatelabErrorCode } from '../errors.js';

/**
 * The CLI's exit codes, documented in the README:
 * - 0 `OK`: done.
 * - 1 `CHECK_FAILED`: the command ran and its check failed (a benchmark regression).
 * - 2 `BAD_INPUT`: bad usage or bad input (unknown flag or scenario, invalid file); nothing
 *   was written.
 * - 3 `UNAVAILABLE`: a service the command needs (Redis, an HTTP endpoint) cannot be reached.
 * - 70 `INTERNAL`: a bug in ratelab; rerun with RATELAB_DEBUG=1 for the stack trace.
 */
export const EXIT = {
  OK: 0,
  CHECK_FAILED: 1,
  BAD_INPUT: 2,
  UNAVAILABLE: 3,
  INTERNAL: 70,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code for a `RatelabError` of `code` (the table in docs/errors.md): 3 when a
 * service the command needs cannot be reached, else 2 (bad usage or input).
 */
export function exitCodeOf(code: RatelabErrorCode): ExitCode {
  return code === 'REDIS_UNAVAILABLE' || code === 'ENDPOINT_UNAVAILABLE' ? EXIT.UNAVAILABLE : EXIT.BAD_INPUT;
}
