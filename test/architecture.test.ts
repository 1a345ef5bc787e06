// The layers of .dependency-cruiser.cjs hold: no import runs back up, the core entry loads
// no lab layer and no third-party module, and src/ holds nothing the rules do not classify.
// The rules' known exceptions (none today) must each still be needed, so the list can only
// shrink.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);
const depcruise = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const configFile = join(root, '.dependency-cruiser.cjs');
const config = require(configFile) as { knownExceptions: Record<string, string[]>; folders: string[] };
const known = config.knownExceptions;

/**
 * What `src/` of `tree` holds that the rules do not classify: every entry but the core entry
 * point (index.ts) and the folders .dependency-cruiser.cjs names. A file or folder placed
 * anywhere else would be checked by no layer rule, so it is refused until it is named.
 */
function unclassified(tree: string): string[] {
  const classified = new Set(['index.ts', ...config.folders]);
  return readdirSync(join(tree, 'src'), { withFileTypes: true })
    .filter((entry) => !classified.has(entry.name) || (entry.name === 'index.ts') === entry.isDirectory())
    .map((entry) => entry.name);
}

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

/** The violations dependency-cruiser finds under `src/` of `cwd`. */
function cruise(cwd: string, env: Record<string, string> = {}): Violation[] {
  const output = execFileSync(process.execPath, [depcruise, 'src', '--config', configFile, '--output-type', 'json'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  return (JSON.parse(output) as { summary: { violations: Violation[] } }).summary.violations;
}

/** One cruise of src/ takes 5-15 s of a loaded 2-core machine. */
const CRUISE_TIMEOUT_MS = 120_000;

const describeViolation = (v: Violation) => `${v.rule.name}: ${v.from} -> ${v.to}`;

describe('the architecture rules', () => {
  it(
    'hold for src/ (with the known exceptions)',
    () => {
      expect(cruise(root).map(describeViolation)).toEqual([]);
    },
    CRUISE_TIMEOUT_MS,
  );

  it(
    'list only exceptions that are still needed',
    () => {
      const violations = cruise(root, { RATELAB_ARCH_NO_EXCEPTIONS: '1' });
      const unused: string[] = [];
      for (const [rule, patterns] of Object.entries(known)) {
        for (const pattern of patterns) {
          if (!violations.some((v) => v.rule.name === rule && new RegExp(pattern).test(v.from)))
            unused.push(`${rule}: ${pattern}`);
        }
      }
      expect(unused).toEqual([]);
    },
    CRUISE_TIMEOUT_MS,
  );

  it('classify everything under src/: the core entry point and named folders, no loose file', () => {
    expect(unclassified(root)).toEqual([]);
    const tree = mkdtempSync(join(tmpdir(), 'ratelab-arch-folders-'));
    try {
      for (const file of ['src/index.ts', 'src/core/policy.ts', 'src/postgres/limiter.ts', 'src/helpers.ts']) {
        mkdirSync(join(tree, file, '..'), { recursive: true });
        writeFileSync(join(tree, file), 'export const x = 1;\n');
      }
      expect(unclassified(tree).sort()).toEqual(['helpers.ts', 'postgres']);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  describe('fail when a new import breaks a layer', () => {
    const tree = mkdtempSync(join(tmpdir(), 'ratelab-arch-'));
    afterAll(() => rmSync(tree, { recursive: true, force: true }));

    /** One offending import per rule: [rule, importing file, imported file]. */
    const CASES: [rule: string, from: string, to: string][] = [
      ['report-not-to-cli', 'src/report/table.ts', 'src/cli/flags.ts'],
      ['metrics-not-up', 'src/metrics/oracle.ts', 'src/sim/replay.ts'],
      ['bench-not-up', 'src/bench/subjects.ts', 'src/sim/contender.ts'],
      ['sim-not-up', 'src/sim/compare.ts', 'src/attack/runner.ts'],
      ['lab-demos-not-up', 'src/attack/analysis.ts', 'src/report/table.ts'],
      ['store-below-limiter', 'src/memory/slot-table.ts', 'src/memory/limiter.ts'],
      ['traffic-not-up', 'src/traffic/stream.ts', 'src/metrics/recorder.ts'],
      ['algorithms-pure', 'src/algorithms/gcra.ts', 'src/core/clock.ts'],
      ['core-at-the-bottom', 'src/core/clock.ts', 'src/memory/limiter.ts'],
      ['memory-not-to-redis', 'src/memory/lru-list.ts', 'src/redis/deny-cache.ts'],
      ['library-not-to-lab', 'src/http/middleware.ts', 'src/traffic/random.ts'],
      ['commands-independent', 'src/cli/commands/bench.ts', 'src/cli/commands/race.ts'],
      ['entries-not-imported', 'src/cli/main.ts', 'src/index.ts'],
      ['library-not-to-lab', 'src/redis/client.ts', 'src/lab/index.ts'],
      ['observability-builds-on-core', 'src/observability/prometheus.ts', 'src/memory/limiter.ts'],
      ['observability-only-through-its-entry', 'src/http/headers.ts', 'src/observability/tally.ts'],
      ['entries-not-imported', 'src/cli/flags.ts', 'src/observability/index.ts'],
    ];
    for (const [, from, to] of CASES) {
      for (const file of [from, to]) {
        mkdirSync(join(tree, file, '..'), { recursive: true });
        writeFileSync(join(tree, file), 'export const x = 1;\n');
      }
    }
    for (const [, from, to] of CASES) {
      const specifier = `./${join(to).split('/').slice(1).join('/')}`.replace(/\.ts$/, '.js');
      writeFileSync(
        join(tree, from),
        `import { x } from '${'../'.repeat(from.split('/').length - 2)}${specifier.slice(2)}';\nexport const y = x;\n`,
      );
    }
    writeFileSync(
      join(tree, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }),
    );
    const found = cruise(tree).map((v) => [v.rule.name, v.from, v.to]);

    it.each(CASES)('%s: %s -> %s', (rule, from, to) => {
      expect(found).toContainEqual([rule, from, to]);
    });
  });
});
