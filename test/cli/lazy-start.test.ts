import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// The installed CLI (bin/ -> dist/, built by `npm run build`) in a real process, with a
// preload recording every file it loads: what `--help` and the light commands must not
// pay for. No timing here: bench/import-time.mjs measures the time.
const BIN = fileURLToPath(new URL('../../bin/ratelab.js', import.meta.url));
const RECORDER = fileURLToPath(new URL('../support/record-loads.mjs', import.meta.url));
const HEAVY = ['zod', 'yaml', 'tinybench', 'csv-parse', 'csv-stringify', 'asciichart', 'ioredis'];

const work = mkdtempSync(join(tmpdir(), 'ratelab-loads-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The packages under node_modules that `ratelab ...args` loads, and its exit code and stdout. */
function packagesLoaded(args: string[]): { packages: Set<string>; status: number | null; stdout: string } {
  const log = join(work, `${args.join('_').replace(/\W/g, '') || 'none'}.log`);
  const child = spawnSync(process.execPath, ['--import', RECORDER, BIN, ...args], {
    encoding: 'utf8',
    env: { ...process.env, RATELAB_LOAD_LOG: log, NO_COLOR: '1' },
  });
  const packages = new Set<string>();
  for (const path of readFileSync(log, 'utf8').split('\n')) {
    const match = /node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(path);
    if (match) packages.add(match[1] as string);
  }
  return { packages, status: child.status, stdout: child.stdout };
}

describe('the CLI loads a command only when it runs', () => {
  it.each([[['--help']], [['scenarios']], [['compare', '--help']], [['race', '--help']]])(
    'ratelab %j loads none of the lab packages',
    (args) => {
      const run = packagesLoaded(args);
      expect(run.status).toBe(0);
      expect(run.packages.has('commander')).toBe(true);
      expect(HEAVY.filter((name) => run.packages.has(name))).toEqual([]);
    },
  );

  it('`scenarios` still lists every built-in (from the shipped index)', () => {
    const run = packagesLoaded(['scenarios']);
    expect(
      run.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => line.split(/\s+/)[0]),
    ).toContain('zipf-many-keys');
  });

  it('a command that needs them loads them (the recorder sees what is loaded)', () => {
    const run = packagesLoaded(['scenarios', '--schema']);
    expect(run.status).toBe(0);
    expect(run.packages.has('zod')).toBe(true);
  });
});
