import { randomBytes } from 'node:crypto';
import { accessSync, closeSync, constants, openSync, realpathSync, rmSync, statSync, type Stats } from 'node:fs';
import { chmod, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { RatelabError } from '../core/errors.js';
import type { CommandIO } from './io.js';

/** One file (or `-`, stdout) a command writes, and what goes in it. */
export interface Output {
  target: string;
  content: string;
}

/**
 * Why `target` cannot be written (relative to `cwd`), or undefined when it can: `-` and a
 * writable file, or a new file in a writable folder. Checked before a run, so a bad target
 * fails at once rather than after the run, with the other outputs already written. The
 * folder is tried as the final write will use it: a temporary file is created there and
 * removed (permission bits say nothing to root, and /proc takes no new file whatever they say).
 * A full disk still passes (an empty file fits); the final write then fails with `OUTPUT_FAILED`.
 */
export function outputProblem(target: string, cwd: string): string | undefined {
  if (target === '-') return undefined;
  const path = resolve(cwd, target);
  const existing = statOrUndefined(path);
  if (existing?.isDirectory()) return `${target}: is a folder`;
  if (existing !== undefined && !writable(path)) return `${target}: cannot be written (permission denied)`;
  if (existing !== undefined && !existing.isFile()) return undefined; // a FIFO or device: written directly
  const file = existing === undefined ? path : realpathSync(path);
  const folder = dirname(file);
  const parent = statOrUndefined(folder);
  if (parent === undefined) return `${target}: the folder ${folder} does not exist`;
  if (!parent.isDirectory()) return `${target}: ${folder} is not a folder`;
  return creationProblem(target, file);
}

/** Why no temporary file can be created beside `file` (then removed), or undefined when one can. */
function creationProblem(target: string, file: string): string | undefined {
  const temporary = temporaryFor(file);
  try {
    closeSync(openSync(temporary, 'wx'));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM')
      return `${target}: the folder ${dirname(file)} cannot be written (permission denied)`;
    return `${target}: no file can be created in ${dirname(file)} (${code ?? String(error)})`;
  }
  rmSync(temporary, { force: true });
  return undefined;
}

/** The temporary file a write of `file` goes through: beside it, so the rename stays on its file system. */
function temporaryFor(file: string): string {
  return join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
}

/**
 * Writes every output, or none: each file goes first to a temporary file beside it, and
 * only when all of them are written are they renamed into place (then `-`, FIFOs and devices
 * are written directly: see placeOf).
 * A failure on one (a full disk) removes the temporaries and leaves every existing file as
 * it was. Relative paths are taken from `io.cwd`. A failed write throws `OUTPUT_FAILED`
 * naming the file, the cause and what was written before it.
 */
export async function writeOutputs(outputs: readonly Output[], io: CommandIO): Promise<void> {
  const staged: { temporary: string; path: string; target: string }[] = [];
  const direct: Output[] = [];
  for (const output of outputs) {
    try {
      const place = placeOf(output.target, io.cwd);
      if (place.kind === 'direct') {
        direct.push(output);
        continue;
      }
      const temporary = temporaryFor(place.path);
      staged.push({ temporary, path: place.path, target: output.target });
      await writeFile(temporary, output.content);
      // The replacement keeps the old file's permissions (a 600 file stays private).
      if (place.mode !== undefined) await chmod(temporary, place.mode);
    } catch (error) {
      await Promise.all(staged.map(({ temporary }) => rm(temporary, { force: true })));
      throw writeFailed(output.target, error, []);
    }
  }
  const written: string[] = [];
  for (const [i, { temporary, path, target }] of staged.entries()) {
    try {
      await rename(temporary, path);
    } catch (error) {
      await Promise.all(staged.slice(i).map((left) => rm(left.temporary, { force: true })));
      throw writeFailed(target, error, written);
    }
    written.push(target);
  }
  for (const { target, content } of direct) {
    try {
      if (target === '-') io.stdout.write(content);
      else await writeFile(resolve(io.cwd, target), content);
    } catch (error) {
      throw writeFailed(target, error, written);
    }
    written.push(target);
  }
}

/** Readable causes of the write errors a user can meet; others are shown by their code. */
const WRITE_ERRORS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'file too large',
  EIO: 'input/output error',
  EROFS: 'read-only file system',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
};

/**
 * `OUTPUT_FAILED` for a file write that failed (exit 74), naming the file, the cause and
 * which outputs were written before it; anything else (a bug) passes through as it is.
 */
function writeFailed(target: string, error: unknown, written: readonly string[]): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (!(error instanceof Error) || typeof code !== 'string' || (error as NodeJS.ErrnoException).syscall === undefined)
    return error;
  const cause = WRITE_ERRORS[code] === undefined ? code : `${code}: ${WRITE_ERRORS[code]}`;
  const kept =
    written.length === 0
      ? 'every existing file was left as it was'
      : `${written.join(' and ')} ${written.length === 1 ? 'was' : 'were'} written`;
  return new RatelabError('OUTPUT_FAILED', `${target}: cannot be written (${cause}); ${kept}`, {
    field: target,
    cause: error,
  });
}

/**
 * Where an output goes: `-` and special files (a FIFO, a terminal, /dev/null, a symlink to
 * one) are written directly, since replacing them would break them; a regular file, through
 * any symlinks, is replaced by renaming onto the file they resolve to, keeping its mode.
 */
function placeOf(
  target: string,
  cwd: string,
): { kind: 'direct' } | { kind: 'replace'; path: string; mode: number | undefined } {
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
