import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { compareCommand } from '../../src/cli/commands/compare.js';
import { scenariosCommand } from '../../src/cli/commands/scenarios.js';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';
import { ALGORITHMS } from '../../src/core/policy.js';
import { CSV_COLUMNS } from '../../src/report/data/compare-csv.js';
import { DECISIONS_HELP } from '../../src/core/series.js';
import { parseSamples } from '../../src/report/data/prometheus-text.js';
import stripAnsi from '../../src/report/text/strip-ansi.js';
import { MATRIX_LEGEND } from '../../src/report/text/summary-matrix.js';
import { SWEEP_HINT } from '../../src/report/text/trade-off-charts.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';
import type { Scenario } from '../../src/scenario/scenario.js';
import { compareWorkloads } from '../../src/sim/compare.js';
import { builtinContender } from '../../src/sim/contender.js';
import { scenarioWorkload } from '../../src/sim/workload.js';

const ROOT = join(import.meta.dirname, '../..');
const TRACES = join(ROOT, 'test/fixtures/traces');
const scratch = mkdtempSync(join(tmpdir(), 'ratelab-compare-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The text with wrapped lines (continued with a two-space indent) joined back into one. */
function unwrap(text: string): string {
  return text.replace(/\n {2}/g, ' ');
}

const JSON_FIELDS = [
  'scenario',
  'algorithm',
  'offered',
  'admitted',
  'denied',
  'falseAdmits',
  'falseDenials',
  'errorPercent',
  'worstWindowRatio',
  'fairness',
  'bytesPerKey',
  'opsPerSec',
];

describe('ratelab compare', () => {
  it('prints the sentence, the table and the charts for a scenario', async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(await compareCommand({ scenarios: ['edge-attack'], measure: false }, io)).toBe(0);
    const out = io.out();
    expect(unwrap(out)).toContain(
      'edge-attack: fixed-window let the most through in one 1s window, 2.00x the limit (200 against 100, key "attacker", up to 1s); token-bucket, gcra, sliding-log and sliding-counter stayed within it.',
    );
    expect(out).toMatch(/^fixed-window +800 +800 +0 +400 +0 +50\.00 +2\.00x▲$/m);
    expect(out).toMatch(/^fixed-window +12$/m);
    expect(out).toContain('edge-attack: worst key attacker; most admitted in a trailing 1s window');
    expect(out).toMatch(/^token-bucket = gcra = sliding-log = sliding-counter = exact:$/m);
    expect(out).toMatch(/^fixed-window:$/m);
    expect(out).not.toMatch(/\u001b\[/);
    for (const line of out.split('\n').filter((l) => /[┼┤]/.test(l))) expect(line.length).toBeLessThanOrEqual(80);
    expect(io.err()).toBe('');
  });

  it('colours the table and draws one combined chart with a legend when colour is forced', async () => {
    const io = bufferIO({ cwd: ROOT, env: { FORCE_COLOR: '1' } });
    expect(
      await compareCommand({ scenarios: ['edge-attack'], measure: false, algorithms: 'fixed-window,sliding-log' }, io),
    ).toBe(0);
    const out = io.out();
    expect(out).toMatch(/\u001b\[/);
    expect(stripAnsi(out)).toMatch(/── limit {2}── fixed-window {2}── sliding-log = exact/);
    for (const line of stripAnsi(out)
      .split('\n')
      .filter((l) => /[┼┤]/.test(l)))
      expect(line.length).toBeLessThanOrEqual(80);
  });

  it('wraps the chart legend to 80 columns', async () => {
    const io = bufferIO({ cwd: ROOT, env: { FORCE_COLOR: '1' } });
    await compareCommand({ scenarios: ['edge-attack'], measure: false, limiter: 'examples/my-limiter.mjs' }, io);
    const chart = stripAnsi(io.out()).split('edge-attack: worst key')[1] ?? '';
    expect(chart).toContain('fixed-window');
    for (const line of chart.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('--no-chart leaves the charts out', async () => {
    const io = bufferIO({ cwd: ROOT });
    await compareCommand({ scenarios: ['steady-under'], measure: false, chart: false }, io);
    expect(io.out()).not.toMatch(/[┼┤]/);
  });

  it('writes CSV (RFC 4180, stable columns with units) and JSON (rows and timelines) that parse back', async () => {
    const io = bufferIO({ cwd: scratch });
    const csvPath = join(scratch, 'out.csv');
    const jsonPath = join(scratch, 'out.json');
    expect(
      await compareCommand(
        {
          scenarios: ['edge-attack', 'zipf-many-keys'],
          measure: false,
          chart: false,
          csv: 'out.csv',
          json: 'out.json',
        },
        io,
      ),
    ).toBe(0);
    const csv = readFileSync(csvPath, 'utf8');
    expect(csv.split('\r\n')[0]).toBe(CSV_COLUMNS.join(','));
    const records = parse(csv, { columns: true }) as Record<string, string>[];
    expect(records).toHaveLength(10);
    expect(records.find((r) => r.scenario === 'edge-attack' && r.algorithm === 'fixed-window')).toMatchObject({
      limit: '100',
      window_ms: '1000',
      offered: '800',
      admitted: '800',
      false_admits: '400',
      error_percent: '50',
      worst_window_ratio: '2',
      fairness_jain: '',
      bytes_per_key: '',
      ops_per_sec: '',
      speed_ratio: '',
    });
    expect(Number(records.find((r) => r.scenario === 'zipf-many-keys')?.fairness_jain)).toBeGreaterThan(0);

    const json = JSON.parse(readFileSync(jsonPath, 'utf8')) as {
      version: number;
      rows: Record<string, unknown>[];
      timelines: { scenario: string; algorithm: string; offered: number[]; admitted: number[] }[];
      scenarios: { summary: string }[];
    };
    expect(json.rows).toHaveLength(10);
    for (const row of json.rows) expect(Object.keys(row)).toEqual(expect.arrayContaining(JSON_FIELDS));
    expect(json.rows[4]).toMatchObject({
      scenario: 'edge-attack',
      algorithm: 'fixed-window',
      errorPercent: 50,
      worstWindowRatio: 2,
      bytesPerKey: null,
      opsPerSec: null,
    });
    // Format 2: the percent is named for its unit; the old name is gone.
    expect(json.version).toBe(2);
    for (const row of json.rows) expect(row).not.toHaveProperty('errorRate');
    expect(json.timelines).toHaveLength(10);
    expect(json.timelines[0]?.offered.reduce((a, b) => a + b, 0)).toBe(800);
    expect(json.scenarios[0]?.summary).toMatch(/^edge-attack: fixed-window let the most through/);
    expect(readdirSync(scratch).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('gives byte-identical JSON for the same scenarios and seed (without the measured columns)', async () => {
    const once = async () => {
      const io = bufferIO({ cwd: ROOT });
      await compareCommand(
        { scenarios: ['poisson', 'retry-storm-jitter', 'on-off-heavy-tailed'], measure: false, json: '-' },
        io,
      );
      return io.out();
    };
    const first = await once();
    expect(first.length).toBeGreaterThan(1000);
    expect(await once()).toBe(first);
  });

  it('--csv - sends only the CSV to stdout', async () => {
    const io = bufferIO({ cwd: ROOT });
    await compareCommand({ scenarios: ['steady-under'], measure: false, csv: '-' }, io);
    expect(io.out().startsWith('scenario,algorithm,')).toBe(true);
    expect(parse(io.out(), { columns: true })).toHaveLength(5);
  });

  it('overrides the policy and seed from flags', async () => {
    const io = bufferIO({ cwd: ROOT });
    await compareCommand(
      { scenarios: ['edge-attack'], measure: false, chart: false, limit: '50', json: '-', algorithms: 'fixed-window' },
      io,
    );
    const json = JSON.parse(io.out()) as {
      rows: { admitted: number; worstWindowRatio: number }[];
      scenarios: { policy: unknown }[];
    };
    expect(json.scenarios[0]?.policy).toEqual({ limit: 50, windowMs: 1000 });
    expect(json.rows[0]).toMatchObject({ admitted: 400, worstWindowRatio: 2 });
  });

  it('replays a scenario file and a trace with the policy from flags', async () => {
    const file = join(scratch, 'mine.yaml');
    writeFileSync(
      file,
      'name: mine\ndescription: two keys\npolicy: { limit: 2, window: 100ms }\nduration: 1s\nseed: 1\nsources:\n  - { kind: steady, rate: 50/s, keys: { count: 2, pick: round-robin } }\n',
    );
    const io = bufferIO({ cwd: scratch });
    expect(await compareCommand({ scenarios: ['mine.yaml'], measure: false, json: '-' }, io)).toBe(0);
    expect((JSON.parse(io.out()) as { rows: { keys: number; fairness: number }[] }).rows[0]).toMatchObject({
      keys: 2,
      fairness: 1,
    });

    const trace = bufferIO({ cwd: TRACES });
    expect(
      await compareCommand({ trace: 'good.csv', limit: '2', window: '10ms', measure: false, chart: false }, trace),
    ).toBe(0);
    expect(trace.out()).toMatch(/^good\.csv \(2 per 10ms\): Recorded traffic from good\.csv/m);
  });

  it('says how many trace lines --skip-bad-lines skipped', async () => {
    const io = bufferIO({ cwd: TRACES });
    expect(
      await compareCommand(
        {
          trace: 'unsorted.csv',
          limit: '2',
          window: '10ms',
          measure: false,
          chart: false,
          skipBadLines: true,
          algorithms: 'gcra',
        },
        io,
      ),
    ).toBe(0);
    expect(unwrap(io.out())).toContain(
      "note: skipped 1 bad line of unsorted.csv (first: unsorted.csv:4: time 5 ms comes before the previous line's 10 ms: a trace must be sorted by time)",
    );
  });

  it('runs a user limiter module beside the built-ins (--limiter)', async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(
      await compareCommand(
        {
          scenarios: ['edge-attack', 'retry-storm'],
          measure: false,
          chart: false,
          algorithms: 'token-bucket',
          limiter: 'examples/my-limiter.mjs',
          json: '-',
        },
        io,
      ),
    ).toBe(0);
    const rows = (
      JSON.parse(io.out()) as {
        rows: { algorithm: string; scenario: string; admitted: number; worstWindowRatio: number }[];
      }
    ).rows;
    expect(rows.map((r) => r.algorithm)).toEqual(['token-bucket', 'my-limiter.mjs', 'token-bucket', 'my-limiter.mjs']);
    // A leaky-bucket meter of the same capacity and rate admits what the token bucket does.
    expect(rows[1]).toMatchObject({ admitted: rows[0]?.admitted, worstWindowRatio: rows[0]?.worstWindowRatio });
  });

  it('measures memory per key and decisions per second when asked', async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(await compareCommand({ scenarios: ['steady-under'], algorithms: 'gcra,sliding-log', json: '-' }, io)).toBe(
      0,
    );
    const rows = (
      JSON.parse(io.out()) as {
        rows: { bytesPerKey: number; stateBytesPerKey: number; opsPerSec: number; speedRatio: number }[];
      }
    ).rows;
    for (const row of rows) {
      expect(row.bytesPerKey).toBeGreaterThan(0);
      expect(row.opsPerSec).toBeGreaterThan(0);
      expect(row.speedRatio).toBeGreaterThan(0);
    }
    expect(rows[1]?.stateBytesPerKey).toBe(8 * 100 + 13 + 8);
  });
});

/** Three built-ins: enough for the summary, quick to replay. */
const BUILTIN_SAMPLE = ['edge-attack', 'steady-under', 'single-burst'];

describe('ratelab compare: the summary first', () => {
  const BUILTINS = builtinScenarios().map((scenario) => scenario.name);

  /** Runs the CLI as a person on an 80-column terminal without colour would. */
  async function compare(argv: string[], env: Record<string, string | undefined> = { NO_COLOR: '1', COLUMNS: '80' }) {
    const io = bufferIO({ cwd: ROOT, env });
    const code = await run(['compare', '--no-measure', ...argv], io);
    return { code, out: io.out(), err: io.err(), lines: io.out().trimEnd().split('\n') };
  }

  it('the default run prints a sentence per built-in and the matrix naming every scenario and algorithm, in at most 100 lines of at most 80 columns', async () => {
    const { code, out, lines } = await compare([]);
    expect(code).toBe(0);
    expect(lines.length).toBeLessThanOrEqual(100);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    for (const name of BUILTINS) {
      expect(out).toMatch(new RegExp(`^${name}: `, 'm'));
      expect(out).toMatch(new RegExp(`^${name} +\\d\\.\\d\\dx`, 'm'));
    }
    for (const algorithm of ALGORITHMS) expect(out).toMatch(new RegExp(`^scenario .*${algorithm}`, 'm'));
    expect(out).toMatch(/^edge-attack .*2\.00x▲ 50\.0%$/m);
    expect(out).toContain(MATRIX_LEGEND);
    expect(out).not.toContain('offered');
    expect(out).not.toMatch(/[┼┤]/);
  });

  it('a scenario with labels and client waits (throttled-clients) keeps every line, the per-label legend too, within 80 columns', async () => {
    const { code, out, lines } = await compare(['throttled-clients']);
    expect(code).toBe(0);
    expect(out).toMatch(/^per label: .*\n {2}wait = from wanting to send to admitted$/m);
    // The waits did not fit beside the counts: they follow in a table of their own.
    expect(out).toMatch(/^label +algorithm +wait p50 +wait p99$/m);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  });

  it.each([
    { argv: ['--detail', ...BUILTIN_SAMPLE], tables: 3, matrix: true },
    { argv: ['edge-attack'], tables: 1, matrix: false },
    { argv: ['edge-attack', 'steady-under'], tables: 2, matrix: true },
    { argv: BUILTIN_SAMPLE, tables: 0, matrix: true },
    {
      argv: ['--trace', 'test/fixtures/traces/good.csv', '--limit', '2', '--window', '10ms'],
      tables: 1,
      matrix: false,
    },
  ])('$argv: $tables tables with charts, matrix: $matrix', async ({ argv, tables, matrix }) => {
    const { code, out } = await compare(argv);
    expect(code).toBe(0);
    expect(out.match(/^algorithm +offered/gm) ?? []).toHaveLength(tables);
    expect(out.match(/most admitted in a trailing \S+ window/g)?.length ?? 0).toBe(tables);
    expect(out.includes(MATRIX_LEGEND)).toBe(matrix);
    if (matrix)
      expect(out.trimEnd().endsWith('name one or two scenarios.') || out.trimEnd().endsWith(MATRIX_LEGEND)).toBe(true);
  });

  it('says that fleet is the single-node view and points to ratelab distributed', async () => {
    const { out } = await compare(['fleet', '--no-chart']);
    expect(out.replace(/\n {2}/g, ' ')).toMatch(
      /^fleet \(100 per 1s\): .*In compare, the single-node view \(one limiter sees every request\); ratelab distributed spreads it over a fleet/m,
    );
  });

  it('fits the table and the matrix to a 100-column terminal, colour or not', async () => {
    for (const env of [{ COLUMNS: '100' }, { COLUMNS: '100', FORCE_COLOR: '1' }]) {
      const { out } = await compare(['--detail', '--no-chart', ...BUILTIN_SAMPLE], env);
      const lines = stripAnsi(out).trimEnd().split('\n');
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(100);
      expect(lines.filter((line) => line.startsWith('scenario '))).toHaveLength(1);
    }
  });
});

describe('ratelab compare: the trade-off closes a measured run', () => {
  const BARS = /^(token-bucket|gcra|sliding-log|sliding-counter|fixed-window) +[█-▏]+ [\d.]+(x| B)$/gm;

  /** Runs the CLI, measuring, as a person on an 80-column terminal without colour would. */
  async function measured(argv: string[]) {
    const io = bufferIO({ cwd: ROOT, env: { NO_COLOR: '1', COLUMNS: '80' } });
    const code = await run(['compare', ...argv], io);
    return { code, out: io.out(), lines: io.out().trimEnd().split('\n') };
  }

  it('the default summary ends with the memory and speed bars and the scatter, in at most 135 lines of at most 80 columns', async () => {
    const { code, out, lines } = await measured([]);
    expect(code).toBe(0);
    expect(lines.length).toBeLessThanOrEqual(135);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
    const tail = out.slice(out.indexOf('memory per key (heap bytes per key, medians over 16 scenarios)'));
    expect(tail).toContain('\nspeed (x ref: over a reference in the same rounds, medians over 16 scenarios)\n');
    expect(tail.match(BARS)).toHaveLength(10); // a memory and a speed bar per algorithm
    expect(unwrap(tail)).toContain('trade-off (medians over 16 scenarios): what each gets wrong (x, error % vs');
    expect(tail).toMatch(/^ *\d* ┤S/m); // the exact sliding log: at 0% error, the first column
    expect(lines.slice(-2)).toEqual([
      'T token-bucket  G gcra  S sliding-log  C sliding-counter  F fixed-window',
      SWEEP_HINT, // the memory of full keys is the sweep's
    ]);
    expect(out.indexOf('memory per key (heap')).toBeGreaterThan(out.indexOf(MATRIX_LEGEND));
  }, 120_000);

  it('--detail closes with the same charts after the matrix; its JSON contenders are the medians of its rows', async () => {
    const json = join(scratch, 'trade-off.json');
    const { code, out } = await measured([...BUILTIN_SAMPLE, '--detail', '--no-chart', '--json', json]);
    expect(code).toBe(0);
    expect(out.indexOf('memory per key (heap bytes per key, medians over 3 scenarios)')).toBeGreaterThan(
      out.indexOf(MATRIX_LEGEND),
    );
    expect(out.match(BARS)).toHaveLength(10);
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      contenders: Record<string, number | string>[];
      rows: Record<string, number | string>[];
    };
    expect(report.contenders.map((c) => c.contender)).toEqual(ALGORITHMS);
    const median = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return sorted[(sorted.length - 1) / 2] as number; // three scenarios: the middle one
    };
    for (const contender of report.contenders) {
      const rows = report.rows.filter((row) => row.algorithm === contender.contender);
      expect(contender.workloads).toBe(3);
      for (const field of ['errorPercent', 'worstWindowRatio', 'bytesPerKey', 'speedRatio'])
        expect(contender[field]).toBe(median(rows.map((row) => row[field] as number)));
      // The bar prints whole bytes of the unrounded median; the JSON keeps one decimal of it.
      const bar = new RegExp(`^${contender.contender} +[█-▏]+ (\\d+) B$`, 'm').exec(out);
      expect(Math.abs(Number(bar?.[1]) - (contender.bytesPerKey as number))).toBeLessThanOrEqual(0.55);
    }
  }, 120_000);

  it('one scenario shows its own figures after its table ("in" it, not medians)', async () => {
    const { out, lines } = await measured(['edge-attack', '--no-chart', '--algorithms', 'fixed-window,sliding-log']);
    expect(out).toContain('memory per key (heap bytes per key, in edge-attack)');
    expect(out.match(BARS)).toHaveLength(4);
    expect(lines.slice(-2)).toEqual(['F fixed-window  S sliding-log', SWEEP_HINT]);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80);
  }, 60_000);

  it('--no-measure leaves out the bars and the scatter, and the JSON medians of cost are null', async () => {
    const json = join(scratch, 'no-measure.json');
    const { out } = await measured([...BUILTIN_SAMPLE, '--no-measure', '--json', json]);
    expect(out).not.toMatch(/[█-▏┤]/);
    expect(out).not.toContain('memory per key');
    const report = JSON.parse(readFileSync(json, 'utf8')) as { contenders: Record<string, unknown>[] };
    for (const contender of report.contenders) expect(contender).toMatchObject({ bytesPerKey: null, speedRatio: null });
  });
});

describe('ratelab compare gates (--max-worst-window, --max-error)', () => {
  it.each([
    {
      argv: ['edge-attack', '--algorithms', 'fixed-window', '--max-worst-window', '1.5'],
      code: 1,
      err: 'ratelab: gate: edge-attack / fixed-window: worst window 2.00x the limit, above --max-worst-window 1.5\n',
    },
    {
      argv: ['edge-attack', '--algorithms', 'fixed-window', '--max-worst-window', '2.0'],
      code: 0,
      err: 'ratelab: gate: the row passes\n',
    },
    {
      argv: ['edge-attack', '--max-worst-window', '1'],
      code: 1,
      err: 'ratelab: gate: edge-attack / fixed-window: worst window 2.00x the limit, above --max-worst-window 1\n',
    },
    {
      argv: ['edge-attack', 'single-burst', '--algorithms', 'sliding-log,fixed-window', '--max-error', '10%'],
      code: 1,
      err: 'ratelab: gate: edge-attack / fixed-window: error 50.00% of requests, above --max-error 10%\n',
    },
    {
      argv: [
        'edge-attack',
        'single-burst',
        '--algorithms',
        'fixed-window',
        '--max-worst-window',
        '1.1',
        '--max-error',
        '5',
      ],
      code: 1,
      err:
        [
          'ratelab: gate: edge-attack / fixed-window: worst window 2.00x the limit, above --max-worst-window 1.1',
          'ratelab: gate: edge-attack / fixed-window: error 50.00% of requests, above --max-error 5%',
          'ratelab: gate: single-burst / fixed-window: worst window 1.19x the limit, above --max-worst-window 1.1',
          'ratelab: gate: single-burst / fixed-window: error 5.76% of requests, above --max-error 5%',
        ].join('\n') + '\n',
    },
    {
      argv: ['edge-attack', '--algorithms', 'sliding-log', '--max-worst-window', '1', '--max-error', '0'],
      code: 0,
      err: 'ratelab: gate: the row passes\n',
    },
    {
      argv: ['edge-attack', 'steady-under', '--algorithms', 'sliding-log,gcra', '--max-worst-window', '1'],
      code: 0,
      err: 'ratelab: gate: all 4 rows pass\n',
    },
  ])('$argv exits $code', async ({ argv, code, err }) => {
    const io = bufferIO({ cwd: ROOT });
    expect(await run(['compare', '--no-measure', '--no-chart', ...argv], io)).toBe(code);
    expect(io.err()).toBe(err);
    expect(io.out()).toMatch(/^algorithm +offered/m);
  });

  it('writes the outputs before failing the gate', async () => {
    const out = join(scratch, 'gated.json');
    const io = bufferIO({ cwd: ROOT });
    expect(await run(['compare', 'edge-attack', '--no-measure', '--max-worst-window', '1', '--json', out], io)).toBe(1);
    expect((JSON.parse(readFileSync(out, 'utf8')) as { rows: unknown[] }).rows).toHaveLength(5);
  });

  it.each([
    [['--max-worst-window', 'lots'], 'ratelab: --max-worst-window: expected a number of at least 0, got "lots"\n'],
    [['--max-worst-window', '-1'], 'ratelab: --max-worst-window: expected a number of at least 0, got "-1"\n'],
    [['--max-error', '101'], 'ratelab: --max-error: expected a number from 0 to 100, got "101"\n'],
  ])('refuses %j with exit 2 before running', async (argv, message) => {
    const io = bufferIO({ cwd: ROOT });
    expect(await run(['compare', 'edge-attack', '--no-measure', ...argv], io)).toBe(2);
    expect(io.err()).toBe(message);
    expect(io.out()).toBe('');
  });
});

describe('compare progress', () => {
  it.each([
    {
      names: ['edge-attack', 'retry-storm'],
      calls: [
        ['edge-attack (token-bucket, sliding-log)', 1, 2],
        ['retry-storm (token-bucket)', 2, 2],
        ['retry-storm (sliding-log)', 2, 2],
      ],
    },
    { names: ['steady-under'], calls: [['steady-under (token-bucket, sliding-log)', 1, 1]] },
  ])('counts the workloads: $names', async ({ names, calls }) => {
    const scenarios = new Map(builtinScenarios().map((scenario) => [scenario.name, scenario]));
    const workloads = names.map((name) => scenarioWorkload(scenarios.get(name) as Scenario));
    const seen: unknown[] = [];
    await compareWorkloads(workloads, {
      contenders: (policy) =>
        (['token-bucket', 'sliding-log'] as const).map((algorithm) => builtinContender(algorithm, policy)),
      measure: false,
      onProgress: (...args) => seen.push(args),
    });
    expect(seen).toEqual(calls);
  });
});

describe('ratelab compare on bad input: exit 2, one line per problem, nothing written', () => {
  it.each([
    [['compare', 'edge-atack'], /^ratelab: unknown scenario "edge-atack"; did you mean edge-attack\?\n$/],
    [
      ['compare', '--algorithms', 'token-bucket,leaky'],
      /^ratelab: --algorithms: expected one of token-bucket, gcra, sliding-log, sliding-counter, fixed-window, got "leaky"\n$/,
    ],
    [['compare', '--limit', '-5'], /^ratelab: --limit: expected a whole number from 1 to 4294967295, got "-5"\n$/],
    [['compare', '--window', 'soon'], /^ratelab: --window: expected a duration/],
    [['compare', '--trace', 'good.csv'], /^ratelab: --trace: a trace needs a policy: pass --limit N and --window D/],
    [
      ['compare', '--trace', 'bad-time.csv', '--limit', '5', '--window', '1s'],
      /^ratelab: bad-time\.csv:4: time_ms: expected a time in ms >= 0 \(or pass --skip-bad-lines\)\n$/,
    ],
    [['compare', '--trace', 'nope.csv', '--limit', '5', '--window', '1s'], /^ratelab: nope\.csv: no such file\n$/],
    [['compare', '--limiter', 'nope.mjs'], /^ratelab: nope\.mjs: no such file\n$/],
    [['compare', 'unknown.txt'], /^ratelab: unknown\.txt:1: expected a map with the keys/],
  ])('%j', async (argv, message) => {
    const io = bufferIO({ cwd: TRACES });
    const out = join(scratch, `bad-${argv.length}-${Math.random().toString(36).slice(2)}.json`);
    expect(await run([...argv, '--no-measure', '--json', out], io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(existsSync(out)).toBe(false);
  });

  it('keeps an existing output file when the run fails', async () => {
    const out = join(scratch, 'kept.json');
    writeFileSync(out, 'old');
    const io = bufferIO({ cwd: TRACES });
    expect(await run(['compare', '--trace', 'unsorted.csv', '--limit', '5', '--window', '1s', '--json', out], io)).toBe(
      2,
    );
    expect(readFileSync(out, 'utf8')).toBe('old');
  });

  it.each([
    [
      'export default () => ({ consume: () => 42 });',
      'consume() must return { allowed: boolean } or a boolean, got 42',
    ],
    [
      'export const limiter = 1;',
      'must export a factory function (policy, { clock }) => limiter, as its default export or as createLimiter',
    ],
    ['export default () => { throw new Error("no Redis"); };', 'its factory threw: no Redis'],
    ['export default () => ({ consume() { throw new Error("boom"); } });', 'consume() threw: boom'],
    ['export default async () => ({ consume: async () => { throw new Error("late"); } });', 'consume() threw: late'],
  ])('refuses a module that does not fit the contract: %s', async (source, why) => {
    const module = join(scratch, `bad-limiter-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(module, `${source}\n`);
    const name = module.split('/').pop() as string;
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', 'steady-under', '--no-measure', '--limiter', name], io)).toBe(2);
    expect(io.err()).toBe(`ratelab: ${name}: ${why}\n`);
  });
});

describe('ratelab scenarios', () => {
  it('lists every built-in with its description and policy', async () => {
    const io = bufferIO();
    expect(await scenariosCommand({}, io)).toBe(0);
    expect(io.out()).toMatch(/^edge-attack +A full quota just before a window boundary .* \[100\/1s, 12s\]$/m);
    expect(io.out().trim().split('\n').length).toBeGreaterThanOrEqual(10);
  });
});

describe('compare --prom', () => {
  it("writes each scenario x algorithm's allowed and denied counts as serve's ratelab_decisions_total, the same counts as --json", async () => {
    const prom = join(scratch, 'counts.prom');
    const json = join(scratch, 'counts.json');
    const io = bufferIO({ cwd: scratch });
    expect(
      await run(['compare', 'single-burst', 'steady-over', '--no-measure', '--prom', prom, '--json', json], io),
    ).toBe(0);
    const text = readFileSync(prom, 'utf8');
    expect(text.split('\n').slice(0, 2)).toEqual([
      `# HELP ratelab_decisions_total ${DECISIONS_HELP}`,
      '# TYPE ratelab_decisions_total counter',
    ]);
    const rows = (
      JSON.parse(readFileSync(json, 'utf8')) as {
        rows: { scenario: string; algorithm: string; admitted: number; denied: number }[];
      }
    ).rows;
    // why: one sample per row and outcome, labelled limiter = the algorithm, tier = the scenario.
    expect(parseSamples(text)).toEqual(
      rows.flatMap((row) =>
        (['allowed', 'denied'] as const).map((outcome) => ({
          name: 'ratelab_decisions_total',
          labels: { limiter: row.algorithm, tier: row.scenario, outcome },
          value: outcome === 'allowed' ? row.admitted : row.denied,
        })),
      ),
    );
    expect(rows).toHaveLength(2 * ALGORITHMS.length);
  });

  it('goes to stdout alone with --prom -', async () => {
    const io = bufferIO({ cwd: scratch });
    expect(await run(['compare', 'single-burst', '--no-measure', '--algorithms', 'gcra', '--prom', '-'], io)).toBe(0);
    expect(io.out()).toBe(
      [
        `# HELP ratelab_decisions_total ${DECISIONS_HELP}`,
        '# TYPE ratelab_decisions_total counter',
        'ratelab_decisions_total{limiter="gcra",tier="single-burst",outcome="allowed"} 275',
        'ratelab_decisions_total{limiter="gcra",tier="single-burst",outcome="denied"} 385',
        '',
      ].join('\n'),
    );
  });
});
