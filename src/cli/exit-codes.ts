import type { RatelabErrorCode } from '../core/errors.js';

/**
 * The CLI's exit codes, documented in the README:
 * - 0 `OK`: done.
 * - 1 `CHECK_FAILED`: the command ran and its check failed (a benchmark regression).
 * - 2 `BAD_INPUT`: bad usage or bad input (unknown flag or scenario, invalid file); nothing
 *   was written.
 * - 3 `UNAVAILABLE`: a service the command needs (Redis, an HTTP endpoint) cannot be reached.
 * - 74 `OUTPUT_FAILED`: the command ran, but an output file could not be written (a full
 *   disk, an I/O error); every existing file was left as it was. sysexits' EX_IOERR.
 * - 70 `INTERNAL`: a bug in ratelab; rerun with RATELAB_DEBUG=1 for the stack trace.
 * - 130 `INTERRUPTED` / 143 `TERMINATED`: a run (`attack`, `audit`) cut short by SIGINT / SIGTERM,
 *   after its partial report; 128 + the signal's number, as a shell reports a process the
 *   signal killed, so a script does not take the partial run for a finished one.
 */
export const EXIT = {
  OK: 0,
  CHECK_FAILED: 1,
  BAD_INPUT: 2,
  UNAVAILABLE: 3,
  OUTPUT_FAILED: 74,
  INTERNAL: 70,
  INTERRUPTED: 130,
  TERMINATED: 143,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The exit code for a `RatelabError` of `code` (the table in docs/errors.md): 3 when a
 * service the command needs cannot be reached, 74 when an output could not be written,
 * else 2 (bad usage or input).
 */
export function exitCodeOf(code: RatelabErrorCode): ExitCode {
  if (code === 'REDIS_UNAVAILABLE' || code === 'ENDPOINT_UNAVAILABLE') return EXIT.UNAVAILABLE;
  return code === 'OUTPUT_FAILED' ? EXIT.OUTPUT_FAILED : EXIT.BAD_INPUT;
}

/** The exit code of a process stopped by `signal` (`SIGINT`, `SIGTERM`): 143 for SIGTERM, else 130. */
export function signalExitCode(signal: string): ExitCode {
  return signal === 'SIGTERM' ? EXIT.TERMINATED : EXIT.INTERRUPTED;
}

/**
 * The exit code of a command whose `CommandIO.interrupts` signal aborted with `reason`
 * (bin/ aborts with an Error named for the signal): 143 for SIGTERM, else 130 (SIGINT, or
 * an abort from code).
 */
export function interruptedExitCode(reason: unknown): ExitCode {
  return signalExitCode(reason instanceof Error ? reason.message : '');
}
