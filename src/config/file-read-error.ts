import { RatelabError } from '../core/errors.js';

/**
 * The error to throw when reading the file named `label` failed with `error`: `FILE_NOT_FOUND`
 * when there is no such file (ENOENT), otherwise `FILE_UNREADABLE` naming the system's code
 * (EACCES, EISDIR, ...), `error` kept as its cause.
 */
export function fileReadError(error: unknown, label: string): RatelabError {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return new RatelabError('FILE_NOT_FOUND', `${label}: no such file`, { field: label });
  return new RatelabError('FILE_UNREADABLE', `${label}: cannot be read (${code ?? String(error)})`, {
    field: label,
    cause: error,
  });
}
