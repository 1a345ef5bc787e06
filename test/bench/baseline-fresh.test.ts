import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parseBenchRun } from '../../src/bench/bench-run.js';
import { MEASURED_ENTRIES, measuredSources } from '../../src/bench/source-fingerprint.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASELINE = 'bench/baseline.quick.json';
/** The command of .ci/bench-gate's header and docs/bench.md. */
const REGENERATE =
  'npm run build && node bin/ratelab.js bench --quick --baseline bench/baseline.quick.json --update-baseline';

/** Files whose hash differs between two source maps (added and removed ones too). */
function changedFiles(before: Record<string, string>, now: Record<string, string>): string[] {
  const files = new Set([...Object.keys(before), ...Object.keys(now)]);
  return [...files].filter((file) => before[file] !== now[file]).sort();
}

describe('the committed bench baseline (the gate of .ci/bench-gate)', () => {
  it(`${BASELINE} was measured from the sources the bench measures now`, () => {
    const baseline = parseBenchRun(readFileSync(join(ROOT, BASELINE), 'utf8'), BASELINE);
    const now = measuredSources(ROOT) as Record<string, string>;
    expect(baseline.sources, `${BASELINE} records no sources: regenerate with ${REGENERATE}`).toBeDefined();
    const changed = changedFiles(baseline.sources ?? {}, now);
    expect(
      changed,
      `${BASELINE} is stale: ${changed.join(', ')} changed since it was measured; regenerate with ${REGENERATE}`,
    ).toEqual([]);
  });

  it('the gate runs the same quick bench the regeneration command writes', () => {
    const gate = readFileSync(join(ROOT, '.ci/bench-gate'), 'utf8');
    expect(gate.replace(/\\\n#\s*/g, '')).toContain(REGENERATE.replace('npm run build && ', ''));
    expect(gate).toMatch(/bench --quick .*\n\s*--baseline bench\/baseline\.quick\.json/);
  });
});

describe('measuredSources', () => {
  const root = mkdtempSync(join(tmpdir(), 'ratelab-sources-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  // A tree with the entries, an algorithm two imports away, a type-only import and a dynamic one.
  write(
    'src/bench/measure-child.ts',
    "import { decide } from './subjects.js';\nimport type { Unused } from '../report/table.js';\n",
  );
  write(
    'src/bench/subjects.ts',
    "export { decide } from '../algorithms/gcra.js';\nconst late = () => import('../external-limiter.js');\n",
  );
  write('src/algorithms/gcra.ts', 'export const decide = 1;\n');
  write('src/external-limiter.ts', 'export {};\n');
  write('src/report/table.ts', 'export type Unused = 1;\n');
  for (const entry of MEASURED_ENTRIES.slice(1)) write(entry, 'export {};\n');

  it('hashes every file the entries import, statically or with a literal import(), and no type-only import', () => {
    expect(Object.keys(measuredSources(root) ?? {})).toEqual([
      'src/algorithms/gcra.ts',
      'src/bench/measure-child.ts',
      'src/bench/reference.ts',
      'src/bench/runner.ts',
      'src/bench/subjects.ts',
      'src/external-limiter.ts',
      'src/metrics/memory-child.ts',
    ]);
  });

  it('tells which file changed: an edit two imports away from an entry', () => {
    const before = measuredSources(root) as Record<string, string>;
    write('src/algorithms/gcra.ts', 'export const decide = 2;\n');
    expect(changedFiles(before, measuredSources(root) as Record<string, string>)).toEqual(['src/algorithms/gcra.ts']);
    write('src/report/table.ts', 'export type Unused = 2;\n');
    expect(changedFiles(before, measuredSources(root) as Record<string, string>)).toEqual(['src/algorithms/gcra.ts']);
  });

  it('is undefined without the sources (an installed package has dist/ only)', () => {
    expect(measuredSources(join(root, 'nowhere'))).toBeUndefined();
  });
});
