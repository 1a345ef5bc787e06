/** A stream a command writes to: stdout or stderr, or a buffer in tests. */
export interface OutputStream {
  write(text: string): unknown;
  /** True when a person is watching (colour, progress and charts are for them). */
  isTTY?: boolean;
  /** The terminal's width in columns, when it is a terminal (Node sets it on process streams). */
  columns?: number;
}

/**
 * Everything a command touches outside its options: output streams, the environment and
 * the working directory. `bin/` passes the process's; tests pass buffers.
 */
export interface CommandIO {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * For long-running commands (`serve`, `attack`): a signal that aborts on SIGINT/SIGTERM,
   * its reason an Error whose message is the signal's name (see `interruptedExitCode`).
   * Calling it takes those signals over from their default (exit at once), so only a
   * command that stops cleanly on the signal should call it. Absent in tests.
   */
  interrupts?: () => AbortSignal;
}

/** A command of the CLI: parsed options in, exit code out. It never calls process.exit. */
export type Command<Options> = (options: Options, io: CommandIO) => Promise<number>;

/** An in-memory CommandIO for tests and embedding: read `out()` and `err()` afterwards. */
export function bufferIO(
  options: { env?: Record<string, string | undefined>; cwd?: string; tty?: boolean } = {},
): CommandIO & { out(): string; err(): string } {
  const out: string[] = [];
  const err: string[] = [];
  return {
    stdout: { write: (text: string) => out.push(text), isTTY: options.tty ?? false },
    stderr: { write: (text: string) => err.push(text), isTTY: options.tty ?? false },
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    out: () => out.join(''),
    err: () => err.join(''),
  };
}
