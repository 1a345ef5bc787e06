import type { Redis } from 'ioredis';
import { RatelabError } from '../core/errors.js';

/**
 * Loads ioredis, an optional peer dependency: only code that opens its own connection
 * needs it (a limiter given a client does not). A missing package becomes one clear
 * `MISSING_DEPENDENCY` error saying what to install, in ESM and in the CommonJS build alike.
 */
export async function loadIoredis(): Promise<{ Redis: typeof Redis }> {
  try {
    const { Redis } = await import('ioredis');
    return { Redis };
  } catch (error) {
    if (!isMissingPackage(error, 'ioredis')) throw error;
    throw new RatelabError(
      'MISSING_DEPENDENCY',
      'ratelab needs the optional peer dependency ioredis to connect to Redis: npm install ioredis',
      { field: 'redis', cause: error },
    );
  }
}

function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${name}'`);
}
