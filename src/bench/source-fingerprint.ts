import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';

/**
 * The modules whose code makes the quick bench's figures: the child that measures each
 * subject (and through its imports the algorithms, the memory limiter and the batch loop),
 * the reference bucket measured beside it, the memory probe's child, and the runner that
 * turns rounds into figures. Paths from the package root.
 */
export const MEASURED_ENTRIES = [
  'src/bench/measure-child.ts',
  'src/bench/reference.ts',
  'src/metrics/memory-child.ts',
  'src/bench/runner.ts',
] as const;

/**
 * Each source file the figures of a bench run depend on (the entries and every module they
 * import, statically or with a literal `import()`, type-only imports aside) -> the first 16
 * hex digits of its SHA-256, in path order. Undefined where the sources are not there (an
 * installed package ships dist/ only). A baseline records it, so a test can tell that the
 * code measured changed since the baseline was made.
 */
export function measuredSources(root: string): Record<string, string> | undefined {
  if (!MEASURED_ENTRIES.every((entry) => existsSync(join(root, entry)))) return undefined;
  const files = importClosure(root, MEASURED_ENTRIES);
  const sources: Record<string, string> = {};
  for (const file of [...files].sort())
    sources[file] = createHash('sha256')
      .update(readFileSync(join(root, file)))
      .digest('hex')
      .slice(0, 16);
  return sources;
}

/** Relative specifiers of value imports: `from './x.js'`, `import './x.js'`, `import('./x.js')`. */
const IMPORT =
  /^\s*(?:import|export)\s+(?!type\s)(?:[^'";]*?\sfrom\s*)?['"](\.{1,2}\/[^'"]+)['"]|import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/gm;

/** `entries` and every source file reachable from them through relative imports (`.js` names the `.ts` beside it). */
function importClosure(root: string, entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(join(root, file), 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const target = sourceOf(root, posix.join(posix.dirname(file), (match[1] ?? match[2]) as string));
      if (target !== undefined && !seen.has(target)) pending.push(target);
    }
  }
  return seen;
}

/** The source file an import specifier names (`x.js` -> `x.ts`), or undefined when there is none (a data file). */
function sourceOf(root: string, specifier: string): string | undefined {
  const candidates = [specifier.replace(/\.js$/, '.ts'), specifier.replace(/\.mjs$/, '.mts'), specifier];
  const found = candidates.find(
    (candidate) => /\.(ts|mts|js|mjs)$/.test(candidate) && existsSync(join(root, candidate)),
  );
  return found === undefined ? undefined : relative(root, join(root, found)).split('\\').join('/');
}
