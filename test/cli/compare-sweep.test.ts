import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { ALGORITHMS } from '../../src/core/policy.js';
import { SWEEP_CSV_COLUMNS } from '../../src/report/data/memory-sweep-csv.js';
import { bufferIO } from '../../src/report/io.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-sweep-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('ratelab compare --sweep-limit', () => {
  it('writes a row per (algorithm, limit): the sliding log rising, the others flat', async () => {
    const csv = join(scratch, 'sweep.csv');
    const json = join(scratch, 'sweep.json');
    const io = bufferIO({ cwd: scratch, env: { NO_COLOR: '1', COLUMNS: '80' } });
    expect(await run(['compare', '--sweep-limit', '1000, 10,10', '--csv', csv, '--json', json], io)).toBe(0);
    const rows = parse(readFileSync(csv, 'utf8'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([...SWEEP_CSV_COLUMNS]);
    // Repeats kept once and sorted: each algorithm at 10 then 1,000.
    expect(rows.map((row) => `${row.algorithm}@${row.limit}`)).toEqual(
      ALGORITHMS.flatMap((algorithm) => [`${algorithm}@10`, `${algorithm}@1000`]),
    );
    for (const row of rows) expect([row.window_ms, row.keys]).toEqual(['60000', '65536']);
    const document = JSON.parse(readFileSync(json, 'utf8')) as {
      mode: string;
      rows: unknown[];
      slopes: { algorithm: string; growth: string }[];
    };
    expect(document.mode).toBe('sweep-limit');
    expect(document.rows).toHaveLength(10);
    expect(Object.fromEntries(document.slopes.map((s) => [s.algorithm, s.growth]))).toEqual({
      'token-bucket': 'O(1)',
      gcra: 'O(1)',
      'sliding-log': 'O(limit)',
      'sliding-counter': 'O(1)',
      'fixed-window': 'O(1)',
    });
    const out = io.out();
    for (const line of out.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(out).toMatch(/^ {2}S sliding-log +~\d\.\d B\/unit +O\(limit\)/m);
    expect(out).toMatch(/^B per key at limit +10 +1,000$/m);
    expect(out).not.toMatch(/\u001b\[/);
    expect(io.err()).toBe('');
  });

  it.each([
    [['edge-attack'], 'give either scenarios or --sweep-limit, not both (got edge-attack)'],
    [['--trace', 'x.csv'], '--trace does not apply: the sweep replays no trace'],
    [['--limit', '5'], '--limit does not apply: the sweep sets the limit itself'],
    [['--no-measure'], '--no-measure leaves nothing to sweep: it only measures'],
    [['--prom', 'x.prom'], '--prom does not apply: the sweep decides no request, so it has no decisions to count'],
  ])('refuses %j with it: exit 2, one line', async (argv, why) => {
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', '--sweep-limit', '10,100', ...argv], io)).toBe(2);
    expect(io.err()).toBe(`ratelab: --sweep-limit: ${why}\n`);
    expect(io.out()).toBe('');
  });

  it.each([
    ['10,ten', '--sweep-limit: expected a whole number from 1 to 4294967295, got "ten"', 'not a number'],
    ['0,10', '--sweep-limit: expected a whole number from 1 to 4294967295, got "0"', 'a limit is at least 1'],
    ['10,-5', '--sweep-limit: expected a whole number from 1 to 4294967295, got "-5"', 'no sign'],
    [' , ', '--sweep-limit: expected limits such as 10,100,1000,10000, got " , "', 'no limit at all'],
    ['1,2,3,4,5,6,7,8,9,10,11,12,13', '--sweep-limit: expected at most 12 limits, got 13', 'each limit is 5 probes'],
    ['10,2097152', '--sweep-limit: 2097152 (sliding-log): the sliding log keeps', "past the log's 2^20"],
  ])('refuses --sweep-limit %j before measuring: exit 2, one line (%s)', async (list, message) => {
    const csv = join(scratch, `bad-${Math.random().toString(36).slice(2)}.csv`);
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', '--sweep-limit', list, '--csv', csv], io)).toBe(2);
    expect(io.err().startsWith(`ratelab: ${message}`)).toBe(true);
    expect(io.err().split('\n')).toHaveLength(2);
    expect(existsSync(csv)).toBe(false);
  });

  it('takes limits past 2^20 when the sliding log is not swept', async () => {
    const io = bufferIO({ cwd: scratch });
    const csv = join(scratch, 'large.csv');
    expect(await run(['compare', '--sweep-limit', '4e9', '--algorithms', 'fixed-window', '--csv', csv], io)).toBe(0);
    expect(readFileSync(csv, 'utf8')).toMatch(/^fixed-window,4000000000,60000,65536,\d/m);
  });
});
