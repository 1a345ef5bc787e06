import { randomBytes } from 'node:crypto';
import { accessSync, constants, realpathSync, statSync, type Stats } from 'node:fs';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { CommandIO } from '../io.js';

/** One file (or `-`, stdout) a command writes, and what goes in it. */
export interface Output {
  target: string;
  content: string;
}

/**
 * Why `target` cannot be written (relative to `cwd`), or undefined when it can: `-` and a
 * writable file, or a new file in a writable folder. Checked before a run, so a bad target
 * fails at once rather than after the run, with the other outputs already written.
 */
export function outputProblem(target: string, cwd: string): string | undefined {
  if (target === '-') return undefined;
  const path = resolve(cwd, target);
  const existing = statOrUndefined(path);
  if (existing?.isDirectory()) return `${target}: is a folder`;
  if (existing !== undefined && !writable(path)) return `${target}: cannot be written (permission denied)`;
  if (existing !== undefined && !existing.isFile()) return undefined; // a FIFO or device: written directly
  const folder = dirname(existing === undefined ? path : realpathSync(path));
  const parent = statOrUndefined(folder);
  if (parent === undefined) return `${target}: the folder ${folder} does not exist`;
  if (!parent.isDirectory()) return `${target}: ${folder} is not a folder`;
  if (!writable(folder)) return `${target}: the folder ${folder} cannot be written (permission denied)`;
  return undefined;
}

/**
 * Writes every output, or none: each file goes first to a temporary file beside it, and
 * only when all of them are written are they renamed into place (then `-`, FIFOs and devices
 * are written directly: see placeOf).
 * A failure on one (a full disk) removes the temporaries and leaves every existing file as
 * it was. Relative paths are taken from `io.cwd`.
 */
export async function writeOutputs(outputs: readonly Output[], io: CommandIO): Promise<void> {
  const staged: { temporary: string; path: string }[] = [];
  const direct: Output[] = [];
  try {
    for (const output of outputs) {
      const place = placeOf(output.target, io.cwd);
      if (place.kind === 'direct') {
        direct.push(output);
        continue;
      }
      const temporary = join(dirname(place.path), `.${basename(place.path)}.${randomBytes(6).toString('hex')}.tmp`);
      staged.push({ temporary, path: place.path });
      await writeFile(temporary, output.content);
      // The replacement keeps the old file's permissions (a 600 file stays private).
      if (place.mode !== undefined) await chmod(temporary, place.mode);
    }
  } catch (error) {
    await Promise.all(staged.map(({ temporary }) => rm(temporary, { force: true })));
    throw error;
  }
  for (const { temporary, path } of staged) await rename(temporary, path);
  for (const { target, content } of direct) {
    if (target === '-') io.stdout.write(content);
    else await writeFile(resolve(io.cwd, target), content);
  }
}

/**
 * Where an output goes: `-` and special files (a FIFO, a terminal, /dev/null, a symlink to
 * one) are written directly, since replacing them would break them; a regular file, through
 * any symlinks, is replaced by renaming onto the file they resolve to, keeping its mode.
 */
function placeOf(target: string, cwd: string): { kind: 'direct' } | { kind: 'replace'; path: string; mode: number | undefined } {
  if (target === '-') return { kind: 'direct' };
  const path = resolve(cwd, target);
  const existing = statOrUndefined(path);
  if (existing === undefined) return { kind: 'replace', path, mode: undefined };
  if (!existing.isFile()) return { kind: 'direct' };
  return { kind: 'replace', path: realpathSync(path), mode: existing.mode & 0o7777 };
}

/** Writes one output as `writeOutputs` does: `-` is stdout, a file is replaced whole or not at all. */
export async function writeOutput(target: string, content: string, io: CommandIO): Promise<void> {
  await writeOutputs([{ target, content }], io);
}

/** The file's status, or undefined when there is none (also when a folder on the way is a file). */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
}

function writable(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
