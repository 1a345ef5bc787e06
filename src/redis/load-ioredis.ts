import type { Redis } from 'ioredis';
import { isMissingPackage, missingDependency } from '../core/optional-dependency.js';

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
    throw missingDependency('ioredis', 'to connect to Redis', 'redis', error);
  }
}
