import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { MAX_TIMELINE_BUCKETS } from '../../src/metrics/timeline.js';

// Issue 11, items 2 and 3: the lab's memory follows the arrivals, not the time they span,
// and a scenario that would make more arrivals than the cap is refused before it runs.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('../support/cli-child.ts', import.meta.url));
const DAY = 86_400_000;
const scratch = mkdtempSync(join(tmpdir(), 'ratelab-bounds-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

/**
 * `ratelab ...args` from source in a child whose heap is capped at 64 MB: before the fix
 * the 139-day trace took 2.9 GB and the 3-year one aborted V8, so a regression crashes.
 */
function smallHeapRun(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const child = spawnSync(process.execPath, ['--max-old-space-size=64', '--import', 'tsx', CHILD, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: child.status, stdout: child.stdout, stderr: child.stderr };
}

interface JsonReport {
  rows: { offered: number; admitted: number; worstWindowRatio: number }[];
  timelines: { bucketMs: number; offered: number[]; admitted: number[] }[];
}

function scenarioFile(name: string, lines: string[]): string {
  return file(
    `${name}.yaml`,
    [`name: ${name}`, 'description: a test', 'policy: { limit: 10, window: 1s }', 'seed: 1', ...lines].join('\n') +
      '\n',
  );
}

describe('a 3-line trace spanning months or years runs in small memory, with exact figures', () => {
  it.each([
    ['139 days', 139 * DAY],
    ['3 years', 3 * 365 * DAY],
  ])(
    'a trace spanning %s: exit 0, the timeline within MAX_TIMELINE_BUCKETS buckets',
    (name, spanMs) => {
      const trace = file(`span-${spanMs}.csv`, `time_ms,key\n0,a\n${spanMs / 2},a\n${spanMs},b\n`);
      const child = smallHeapRun([
        'compare',
        '--trace',
        trace,
        '--limit',
        '10',
        '--window',
        '1s',
        '--no-measure',
        '--json',
        '-',
      ]);
      expect(child.stderr).toBe('');
      expect(child.status).toBe(0);
      const report = JSON.parse(child.stdout) as JsonReport;
      expect(report.rows).toHaveLength(5);
      for (const row of report.rows) expect(row).toMatchObject({ offered: 3, admitted: 3, worstWindowRatio: 0.1 });
      expect(report.timelines).toHaveLength(5);
      for (const timeline of report.timelines) {
        expect(timeline.offered.length).toBeLessThanOrEqual(MAX_TIMELINE_BUCKETS);
        expect(timeline.offered.length * timeline.bucketMs).toBeGreaterThan(spanMs);
        expect(timeline.offered.reduce((a, b) => a + b, 0)).toBe(3);
      }
    },
    60_000,
  );
});

describe('a time beyond the largest supported one is refused up front', () => {
  it('`1e300` in a trace: exit 2 naming the file, the line and the largest time', async () => {
    file('far.csv', 'time_ms,key\n0,a\n1e300,a\n');
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', '--trace', 'far.csv', '--limit', '10', '--window', '1s', '--no-measure'], io)).toBe(2);
    expect(io.err()).toBe(
      'ratelab: far.csv:3: time_ms: time 1e+300 is beyond the largest supported time, 8640000000000000 ms (100,000,000 days, the range of a JavaScript Date) (or pass --skip-bad-lines)\n',
    );
    expect(io.out()).toBe('');
  });

  it('a scenario duration beyond it: exit 2 naming the field', async () => {
    scenarioFile('forever', ['duration: 100000001d', 'sources:', '  - { kind: burst, at: 0, count: 1 }']);
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', './forever.yaml', '--no-measure'], io)).toBe(2);
    expect(io.err()).toMatch(
      /^ratelab: forever\.yaml:5: duration: expected at most 8640000000000000 ms \(100,000,000 days, the largest supported time\), got 8640000086400000 ms\n$/,
    );
  });
});

describe('`duration: 1d` with `bucket: 1ms` is bounded', () => {
  it('runs, its timeline in at most MAX_TIMELINE_BUCKETS buckets of a multiple of 1 ms covering the day', async () => {
    scenarioFile('day', ['duration: 1d', 'bucket: 1ms', 'sources:', '  - { kind: steady, rate: 1/m }']);
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', './day.yaml', '--no-measure', '--json', '-'], io)).toBe(0);
    const report = JSON.parse(io.out()) as JsonReport;
    for (const timeline of report.timelines) {
      expect(timeline).toMatchObject({ bucketMs: 10_000 });
      expect(timeline.offered).toHaveLength(DAY / 10_000);
      expect(timeline.offered.reduce((a, b) => a + b, 0)).toBe(1440);
    }
    expect(report.rows[0]).toMatchObject({ offered: 1440, admitted: 1440 });
  });
});

describe('the arrival cap', () => {
  it('`rate: 1000000000/ms` is refused before it runs: exit 2 naming the file, the source and the figure', async () => {
    scenarioFile('flood', [
      'duration: 10s',
      'sources:',
      '  - { kind: burst, at: 0, count: 5 }',
      '  - { kind: steady, rate: 1000000000/ms }',
    ]);
    for (const command of ['compare', 'distributed']) {
      const io = bufferIO({ cwd: scratch });
      expect(await run([command, './flood.yaml', ...(command === 'compare' ? ['--no-measure'] : [])], io)).toBe(2);
      expect(io.err()).toBe(
        'ratelab: flood.yaml: sources[1] (steady, 1000000000/ms for 10s) would make 10,000,000,000,000 arrivals, 10,000,000,000,005 for the whole scenario: above the cap of 20,000,000 per scenario (--max-arrivals N raises it)\n',
      );
      expect(io.out()).toBe('');
    }
  });

  it('--max-arrivals sets the cap: a scenario of 1,000 arrivals is refused at 999 and runs at 1,000', async () => {
    scenarioFile('thousand', ['duration: 10s', 'sources:', '  - { kind: steady, rate: 100/s }']);
    for (const [command, extra] of [
      ['compare', ['--no-measure', '--json', '-']],
      ['distributed', ['--json', '-']],
    ] as const) {
      const refused = bufferIO({ cwd: scratch });
      expect(await run([command, './thousand.yaml', '--max-arrivals', '999', ...extra], refused)).toBe(2);
      expect(refused.err()).toBe(
        'ratelab: thousand.yaml: sources[0] (steady, 100/s for 10s) would make 1,000 arrivals: above the cap of 999 per scenario (--max-arrivals N raises it)\n',
      );
      const raised = bufferIO({ cwd: scratch });
      expect(await run([command, './thousand.yaml', '--max-arrivals', '1e3', ...extra], raised)).toBe(0);
      expect((JSON.parse(raised.out()) as JsonReport).rows[0]?.offered).toBe(1000);
    }
  });

  it('--max-arrivals takes a whole number >= 1', async () => {
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', 'edge-attack', '--max-arrivals', '0', '--no-measure'], io)).toBe(2);
    expect(io.err()).toBe('ratelab: --max-arrivals: expected a whole number >= 1, got "0"\n');
  });

  it('a rate too large to be a number is refused as a rate', async () => {
    scenarioFile('huge', ['duration: 10s', 'sources:', `  - { kind: steady, rate: ${'9'.repeat(400)}/ms }`]);
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', './huge.yaml', '--no-measure'], io)).toBe(2);
    expect(io.err()).toMatch(/^ratelab: huge\.yaml:7: sources\[0\]\.rate: expected a rate such as/);
  });
});
