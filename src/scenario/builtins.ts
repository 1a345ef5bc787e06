import { existsSync, readdirSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { RatelabError } from '../core/errors.js';
import { nearestName } from './nearest-name.js';
import { packageRoot } from '../config/package-root.js';
import { loadScenario } from './load-scenario.js';
import type { Scenario } from './scenario.js';

/** The package's scenarios/ folder (with a trailing separator), found from the package root. */
export const BUILTIN_DIR = join(packageRoot(import.meta.url), 'scenarios', '/');

/** The built-in scenarios, in the order of their file names (numbered in teaching order). */
export function builtinScenarios(): Scenario[] {
  return readdirSync(BUILTIN_DIR)
    .filter((name) => name.endsWith('.yaml'))
    .sort()
    .map((name) => loadScenario(join(BUILTIN_DIR, name), `scenarios/${name}`));
}

/**
 * A scenario named on the command line: a built-in's name, or a path to a YAML file
 * (anything with a slash or a .yaml/.yml ending, or an existing file), from `cwd`.
 * Throws `UNKNOWN_SCENARIO` suggesting the nearest built-in's name (or listing them all when
 * none is near), or the loader's errors for a file.
 */
export function resolveScenario(
  arg: string,
  cwd: string,
  builtins: readonly Scenario[] = builtinScenarios(),
): Scenario {
  const path = isAbsolute(arg) ? arg : resolve(cwd, arg);
  if (/[\\/]/.test(arg) || /\.ya?ml$/i.test(arg) || existsSync(path)) {
    const shown = isAbsolute(arg) ? arg : relative(cwd, path) || arg;
    return loadScenario(path, shown);
  }
  const found = builtins.find((scenario) => scenario.name === arg);
  if (found) return found;
  const names = builtins.map((s) => s.name);
  const nearest = nearestName(arg, names);
  const hint = nearest === undefined ? `: expected a file or one of ${names.join(', ')}` : `; did you mean ${nearest}?`;
  throw new RatelabError('UNKNOWN_SCENARIO', `unknown scenario ${JSON.stringify(arg)}${hint}`, { field: arg });
}
