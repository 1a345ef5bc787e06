import type { CommandIO } from '../report/io.js';

/** Progress shows only after this long: short runs stay silent. */
const QUIET_MS = 1000;

/** A one-line progress display on stderr. */
export interface Progress {
  update(text: string): void;
  /** Clears the line (call before printing results). */
  done(): void;
}

/**
 * Progress on stderr, only when stderr is a terminal and only once the run has taken
 * longer than a second; the line is redrawn in place and cleared by `done`.
 */
export function createProgress(io: CommandIO, now: () => number = () => performance.now()): Progress {
  const started = now();
  let shown = false;
  const live = io.stderr.isTTY === true;
  return {
    update(text) {
      if (!live || now() - started < QUIET_MS) return;
      // A line longer than the terminal would wrap, and `\r` would then redraw only its tail.
      const width = io.stderr.columns;
      io.stderr.write(`\r\u001b[K${width === undefined ? text : text.slice(0, width - 1)}`);
      shown = true;
    },
    done() {
      if (shown) io.stderr.write('\r\u001b[K');
      shown = false;
    },
  };
}
