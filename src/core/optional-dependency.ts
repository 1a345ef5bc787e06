import { createRequire } from 'node:module';
import { RatelabError } from './errors.js';

// Optional peer dependencies (ioredis for ratelab/redis's own connections, prom-client and
// @opentelemetry/api for ratelab/metrics): only the code that needs one loads it, and a
// missing package becomes one `MISSING_DEPENDENCY` error saying what to install, in ESM and
// in the CommonJS build alike, instead of Node's resolution error.

/** Whether `error` is Node's "cannot find package `name`" (ESM or CommonJS resolution). */
export function isMissingPackage(error: unknown, name: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  return (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && message.includes(`'${name}'`);
}

/** The error for a missing optional peer `name`, needed `purpose` (e.g. "to connect to Redis"); `field` names the option that needed it. */
export function missingDependency(name: string, purpose: string, field: string, cause: unknown): RatelabError {
  return new RatelabError(
    'MISSING_DEPENDENCY',
    `ratelab needs the optional peer dependency ${name} ${purpose}: npm install ${name}`,
    { field, cause },
  );
}

/**
 * Loads the optional peer `name` synchronously, resolved from ratelab's own location (where
 * an application's node_modules puts its peers); `MISSING_DEPENDENCY` when it is not
 * installed. For packages that ship CommonJS (prom-client, `@opentelemetry/api`): their state
 * is global or passed in (a registry, a meter), so this copy and an application's
 * `import` of the same package work together.
 */
export function requireOptional<T>(name: string, purpose: string, field: string): T {
  try {
    return createRequire(import.meta.url)(name) as T;
  } catch (error) {
    if (isMissingPackage(error, name)) throw missingDependency(name, purpose, field, error);
    throw error;
  }
}
