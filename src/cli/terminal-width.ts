import { MAX_WIDTH } from '../report/text/compare-table.js';
import type { CommandIO } from '../report/io.js';

/** Narrower than this, nothing lays out sensibly; wrap as if it were this wide. */
const MIN_WIDTH = 40;
/** The width assumed for a pipe or a file: it may well end up on an 80-column terminal. */
const DEFAULT_WIDTH = 80;

/**
 * The width stdout's report should fit, columns: `COLUMNS` when set to a number, else the
 * terminal's width, else 80; held to 40..100 (long lines are hard to read even on a wide
 * terminal).
 */
export function terminalWidth(io: Pick<CommandIO, 'env' | 'stdout'>): number {
  const fromEnv = Number(io.env.COLUMNS);
  const columns = Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : (io.stdout.columns ?? DEFAULT_WIDTH);
  return Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, columns));
}
