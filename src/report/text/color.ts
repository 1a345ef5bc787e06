import { Chalk, type ChalkInstance } from 'chalk';
import type { CommandIO } from '../io.js';

/**
 * Whether to colour output on stdout: never with `--no-color` (`flag === false`) or a
 * non-empty NO_COLOR; always with a non-empty FORCE_COLOR (other than 0); otherwise only
 * when stdout is a terminal.
 */
export function colorEnabled(io: CommandIO, flag?: boolean): boolean {
  if (flag === false) return false;
  if (io.env.NO_COLOR) return false;
  const force = io.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0' && force !== 'false') return true;
  return io.stdout.isTTY === true;
}

/** A chalk instance that colours only when {@link colorEnabled} says so. */
export function painter(io: CommandIO, flag?: boolean): ChalkInstance {
  return new Chalk({ level: colorEnabled(io, flag) ? 1 : 0 });
}

/** A chalk instance that never colours: the default of renderers whose callers may not pass one. */
export const PLAIN = new Chalk({ level: 0 });
