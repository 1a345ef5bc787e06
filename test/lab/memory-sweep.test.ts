import { describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/core/policy.js';
import {
  MIN_SWEEP_KEYS,
  SWEEP_KEYS,
  leastSquaresSlope,
  slopeOf,
  sweepKeys,
  sweepMemory,
  type SweepRow,
} from '../../src/metrics/memory-sweep.js';
import { bytesText, renderMemorySweep } from '../../src/report/text/memory-sweep-chart.js';
import { Chalk } from 'chalk';

describe('sweepMemory', () => {
  it('measures the sliding log rising about 8 B per unit of the limit and the others flat', async () => {
    const progress: string[] = [];
    const sweep = await sweepMemory(
      { algorithms: ALGORITHMS, limits: [10, 10_000], windowMs: 60_000, keys: 256 },
      (done, total, row) => progress.push(`${done}/${total} ${row.algorithm} ${row.limit}`),
    );
    expect(sweep.rows.map((row) => [row.algorithm, row.limit, row.keys, row.windowMs])).toEqual(
      ALGORITHMS.flatMap((algorithm) => [10, 10_000].map((limit) => [algorithm, limit, 256, 60_000])),
    );
    expect(progress).toHaveLength(10);
    expect(progress.at(-1)).toBe('10/10 fixed-window 10000');
    for (const slope of sweep.slopes) {
      if (slope.algorithm === 'sliding-log') {
        expect(slope.growth).toBe('O(limit)');
        expect(slope.bytesPerUnit).toBeGreaterThan(6);
        expect(slope.bytesPerUnit).toBeLessThan(10);
      } else {
        expect(slope.growth).toBe('O(1)');
        expect(Math.abs(slope.bytesPerUnit as number)).toBeLessThan(0.5);
      }
    }
  });

  it('checks every policy before the first probe', async () => {
    await expect(
      sweepMemory({ algorithms: ['sliding-log'], limits: [10, 2 ** 21], windowMs: 60_000, keys: 256 }),
    ).rejects.toMatchObject({ code: 'POLICY_TOO_LARGE' });
  });
});

describe('sweepKeys', () => {
  it.each([
    ['token-bucket', 2 ** 20, SWEEP_KEYS, SWEEP_KEYS, 'O(1) state: the budget never binds'],
    ['sliding-log', 1000, SWEEP_KEYS, SWEEP_KEYS, '65,536 rings of 8 kB are 526 MB, within 512 MiB (537 MB)'],
    ['sliding-log', 10_000, SWEEP_KEYS, 4096, 'halved until 4,096 rings of 80 kB (330 MB) fit'],
    ['sliding-log', 100_000, SWEEP_KEYS, 512, 'halved until 512 rings of 800 kB (410 MB) fit'],
    ['sliding-log', 2 ** 20, SWEEP_KEYS, 64, 'the largest ring, 8 MiB: 64 keys fill the budget'],
    ['sliding-log', 2 ** 20, 32, 32, 'never above what the plan asks'],
    ['sliding-log', 10, 256, 256, 'a small plan is kept as it is'],
  ] as const)('%s at %i of %i keys: %i (%s)', (algorithm, limit, keys, expected, _why) => {
    expect(sweepKeys(algorithm, limit, keys)).toBe(expected);
    expect(expected >= MIN_SWEEP_KEYS || expected === keys).toBe(true);
  });
});

describe('leastSquaresSlope', () => {
  it.each<[{ x: number; y: number }[], number | null, string]>([
    [
      [
        { x: 10, y: 100 },
        { x: 1000, y: 8020 },
      ],
      8,
      'two points: the line through them',
    ],
    [
      [
        { x: 10, y: 50 },
        { x: 100, y: 50 },
        { x: 1000, y: 50 },
      ],
      0,
      'flat',
    ],
    [
      [
        { x: 0, y: 0 },
        { x: 1, y: 1 },
        { x: 2, y: 4 },
      ],
      2,
      'the fit, not the end points alone',
    ],
    [[{ x: 10, y: 50 }], null, 'one point has no slope'],
    [[], null, 'no point has none'],
  ])('%j: %s', (points, expected, _why) => {
    const slope = leastSquaresSlope(points);
    if (expected === null) expect(slope).toBeNull();
    else expect(slope).toBeCloseTo(expected, 9);
  });
});

describe('the terminal sweep', () => {
  const rows: SweepRow[] = ALGORITHMS.flatMap((algorithm) =>
    [10, 100, 1000, 10_000].map((limit) => ({
      algorithm,
      limit,
      windowMs: 60_000,
      keys: algorithm === 'sliding-log' && limit === 10_000 ? 2048 : 4096,
      bytesPerKey: algorithm === 'sliding-log' ? 8 * limit + 100 : 90,
    })),
  );
  const sweep = { rows, slopes: ALGORITHMS.map((algorithm) => slopeOf(algorithm, rows)) };
  const text = renderMemorySweep(sweep, new Chalk({ level: 0 }), 80);

  it('fits 80 columns and says each slope in figures and words', () => {
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(text).toMatch(/^ {2}S sliding-log +~8\.0 B\/unit +O\(limit\): grows with the limit$/m);
    expect(text).toMatch(/^ {2}T token-bucket +~0 B\/unit +O\(1\): flat, whatever the limit$/m);
    expect(text).toMatch(/^sliding-log +180 +900 +8,100 +80,100$/m);
    expect(text).toContain('sliding-log at 10,000: 2,048');
  });

  it('keeps to a narrower terminal: the growth without its words', () => {
    const narrow = renderMemorySweep(sweep, new Chalk({ level: 0 }), 44);
    for (const line of narrow.split('\n')) expect(line.length).toBeLessThanOrEqual(44);
    expect(narrow).toMatch(/^ {2}S sliding-log +~8\.0 B\/unit +O\(limit\)$/m);
  });

  it('splits twelve limits into blocks of the table that fit the width', () => {
    const limits = [10, 30, 100, 300, 1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6, 2 ** 20];
    const many: SweepRow[] = limits.map((limit) => ({ ...rows[0]!, limit }));
    const wide = renderMemorySweep(
      { rows: many, slopes: [slopeOf('token-bucket', many)] },
      new Chalk({ level: 0 }),
      80,
    );
    for (const line of wide.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    const headers = wide.split('\n').filter((line) => line.startsWith('B per key at limit'));
    expect(headers.length).toBeGreaterThan(1);
    const shown = headers.flatMap((line) => line.replace('B per key at limit', '').trim().split(/ +/));
    expect(shown).toEqual(limits.map((limit) => limit.toLocaleString('en-US')));
  });

  it('draws the log rising to the top right and the flat ones along the bottom', () => {
    const grid = text.split('\n').filter((line) => /[┤┼]/.test(line));
    expect(grid[0]?.trimEnd().endsWith('S')).toBe(true);
    expect(grid.at(-1)).toMatch(/┼TGCF/);
  });

  it.each([
    [40, '40 B'],
    [8_100, '8.1 kB'],
    [80_960, '81 kB'],
    [8_388_621, '8.4 MB'],
  ])('prints %i bytes as %s', (bytes, text) => {
    expect(bytesText(bytes)).toBe(text);
  });
});
