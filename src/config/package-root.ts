import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of the nearest package.json at or above the module at `moduleUrl` (pass
 * `import.meta.url`): ratelab's root whether the code runs from src/, from the per-file
 * build in dist/ or from a bundle in dist/lib/, so files the package ships beside its code
 * (scenarios/) are found however deep the module sits.
 */
export function packageRoot(moduleUrl: string): string {
  const start = dirname(fileURLToPath(moduleUrl));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json at or above ${start}`);
  }
}
