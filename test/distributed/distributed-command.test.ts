import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { distributedCommand, fleetDesigns } from '../../src/cli/commands/distributed.js';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { DISTRIBUTED_CSV_COLUMNS } from '../../src/report/data/distributed-csv.js';

const dir = mkdtempSync(join(tmpdir(), 'ratelab-distributed-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ratelab distributed', () => {
  it('by default runs every strategy side by side on the fleet scenario: sentence, table and chart', async () => {
    const io = bufferIO();
    expect(await distributedCommand({}, io)).toBe(EXIT.OK);
    const out = io.out();
    expect(out).toMatch(/^fleet \(100 per 1s, global\)/);
    expect(out).toContain('fleet: 4 nodes, even balance, sliding-log, rtt 1ms, sync every 100ms');
    expect(out).toMatch(/fleet: sync let the most through in one 1s window, \d\.\d\dx the limit/);
    for (const design of ['central', 'local-split', 'sync'])
      expect(out).toMatch(new RegExp(`^${design} +[\\d,]+ +[\\d,]+`, 'm'));
    expect(out).toContain('sync: admitted (flat line: the limit)');
    expect(io.err()).toBe('');
  });

  it.each([
    ['80', 80],
    ['100', 100],
  ])(
    'fits the terminal: every line within COLUMNS=%s (at 80 the cost columns go in a table below)',
    async (columns, width) => {
      const io = bufferIO({ env: { NO_COLOR: '1', COLUMNS: columns } });
      expect(await distributedCommand({ outage: '10s-20s', chart: false }, io)).toBe(EXIT.OK);
      const lines = io.out().split('\n');
      expect(lines.filter((line) => line.length > width)).toEqual([]);
      if (width === 80) expect(lines.filter((line) => /^design /.test(line))).toHaveLength(2);
      expect(io.out()).toMatch(/^sync\/closed .* 0\/[\d,]+$/m);
    },
  );

  it('with an outage, runs central and sync under each fail mode, and shows what was admitted while the store was down', async () => {
    const io = bufferIO();
    expect(await distributedCommand({ outage: '10s-20s', chart: false }, io)).toBe(EXIT.OK);
    const designs = [...io.out().matchAll(/^(\S+) +[\d,]+ +[\d,]+/gm)].map((m) => m[1]);
    expect(designs).toEqual([
      'central/open',
      'central/closed',
      'central/local',
      'local-split',
      'sync/open',
      'sync/closed',
      'sync/local',
    ]);
    expect(io.out()).toMatch(/^central\/closed .* 0\/[\d,]+$/m);
    expect(io.out()).not.toContain('admitted (flat line');
  });

  it('writes CSV rows with the strategy, fail mode, counts, worst window, added latency and store calls', async () => {
    const io = bufferIO();
    expect(
      await distributedCommand(
        { strategy: 'central,sync', outage: '10s-20s', failMode: 'closed', nodes: '3', csv: '-' },
        io,
      ),
    ).toBe(EXIT.OK);
    const rows = parse(io.out(), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0]!)).toEqual([...DISTRIBUTED_CSV_COLUMNS]);
    expect(rows.map((row) => [row.strategy, row.fail_mode, row.nodes, row.outage_admitted])).toEqual([
      ['central', 'closed', '3', '0'],
      ['sync', 'closed', '3', '0'],
    ]);
    expect(Number(rows[0]!.added_latency_ms)).toBeGreaterThan(1);
    expect(rows[1]!.added_latency_ms).toBe('0');
    // central: a call per decision, those of the outage (which time out) too; sync: 3 nodes at each of 300 ticks in 30 s.
    expect(rows.map((row) => Number(row.store_calls))).toEqual([Number(rows[0]!.offered), 3 * 300]);
    expect(rows.map((row) => Number(row.store_calls_per_decision))).toEqual([
      1,
      Number((900 / Number(rows[1]!.offered)).toFixed(6)),
    ]);
  });

  it('writes JSON rows and timelines to a file, and the table still goes to stdout', async () => {
    const io = bufferIO({ cwd: dir });
    expect(
      await distributedCommand({ scenario: 'steady-over', balance: 'skewed', json: 'out.json', chart: false }, io),
    ).toBe(EXIT.OK);
    const report = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
    expect(report.scenario.name).toBe('steady-over');
    expect(report.rows.map((row: { strategy: string }) => row.strategy)).toEqual(['central', 'local-split', 'sync']);
    for (const row of report.rows) {
      for (const field of [
        'strategy',
        'failMode',
        'offered',
        'admitted',
        'falseDenials',
        'errorPercent',
        'worstWindowRatio',
        'addedLatencyMs',
        'storeCalls',
        'storeCallsPerDecision',
      ])
        expect(row).toHaveProperty(field);
      expect(row).not.toHaveProperty('errorRate');
    }
    expect(report.version).toBe(2);
    expect(report.timelines).toHaveLength(3);
    expect(io.out()).toContain('steady-over');
  });

  it('gives the same output for the same seed', async () => {
    const once = async () => {
      const io = bufferIO();
      await distributedCommand({ balance: 'skewed', seed: '9', json: '-' }, io);
      return io.out();
    };
    expect(await once()).toBe(await once());
  });

  it.each([
    [['--nodes', '0'], /^ratelab: --nodes: expected a whole number from 1 to 10000, got "0"\n$/],
    [['--outage', '20s-10s'], /^ratelab: --outage: the end must be after the start, got "20s-10s"\n$/],
    [['--outage', '40s-50s'], /^ratelab: --outage: 40s-50s starts after the scenario fleet ends \(30s\)\n$/],
    [['--strategy', 'gossip'], /^ratelab: --strategy: expected one of central, local-split, sync, got "gossip"\n$/],
    [['--fail-mode', 'open,maybe'], /^ratelab: --fail-mode: expected one of open, closed, local, got "maybe"\n$/],
    [['--balance', 'random'], /^ratelab: --balance: expected one of even, skewed, got "random"\n$/],
    [['--sync', '0ms'], /^ratelab: --sync: expected a duration/],
    [['--rtt', 'fast'], /^ratelab: --rtt: expected a duration/],
    [['--algorithm', 'leaky'], /^ratelab: --algorithm: expected one of/],
    [['--limit', '-1'], /^ratelab: --limit: expected a whole number/],
    [['--csv', '-', '--json', '-'], /^ratelab: --csv: only one of --csv and --json can go to stdout/],
    [['no-such-scenario'], /^ratelab: unknown scenario "no-such-scenario"/],
    [['flet'], /^ratelab: unknown scenario "flet"; did you mean fleet\?\n$/],
    [
      ['--json', 'missing-folder/out.json'],
      /^ratelab: --json: missing-folder\/out.json: the folder .* does not exist\n$/,
    ],
  ])('exits 2 with one line for %j, writing nothing', async (args, message) => {
    const io = bufferIO({ cwd: dir });
    expect(await run(['distributed', ...args], io)).toBe(EXIT.BAD_INPUT);
    expect(io.err()).toMatch(message);
    expect(io.out()).toBe('');
  });

  it('does not write a file when the input is bad', async () => {
    const io = bufferIO({ cwd: dir });
    expect(await run(['distributed', '--nodes', '0', '--csv', 'never.csv'], io)).toBe(EXIT.BAD_INPUT);
    expect(existsSync(join(dir, 'never.csv'))).toBe(false);
  });
});

describe('fleetDesigns', () => {
  it('runs local-split once, whatever the fail modes, since it has no store', () => {
    const designs = fleetDesigns({ outage: '1s-2s' });
    expect(designs.map((d) => `${d.strategy}/${d.failMode}`)).toEqual([
      'central/open',
      'central/closed',
      'central/local',
      'local-split/open',
      'sync/open',
      'sync/closed',
      'sync/local',
    ]);
  });

  it('without an outage runs each strategy once (the fail mode never acts)', () => {
    expect(fleetDesigns({}).map((d) => d.strategy)).toEqual(['central', 'local-split', 'sync']);
  });

  it('takes an rtt of 0 (an ideal network)', () => {
    expect(fleetDesigns({ rtt: '0' })[0]!.rttMs).toBe(0);
  });
});
