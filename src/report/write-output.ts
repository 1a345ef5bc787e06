import { randomBytes } from 'node:crypto';
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { CommandIO } from '../io.js';

/**
 * Writes `content` to `target`: `-` means stdout; a path is written atomically (a temporary
 * file in the same folder, then a rename), so an interrupted run leaves either the old
 * file or the new one, never half of one. Relative paths are taken from `io.cwd`.
 */
export async function writeOutput(target: string, content: string, io: CommandIO): Promise<void> {
  if (target === '-') {
    io.stdout.write(content);
    return;
  }
  const path = resolve(io.cwd, target);
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temporary, content);
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
