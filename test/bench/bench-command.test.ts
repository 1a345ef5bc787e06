import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseBenchRun, readBenchRun } from '../../src/bench/bench-run.js';
import { finishBench } from '../../src/cli/commands/bench.js';
import { Chalk } from 'chalk';
import { renderSpeedBars } from '../../src/report/text/bench-report.js';
import { bufferIO } from '../../src/report/io.js';
import { run as runCli } from '../../src/cli/main.js';
import { memory, rounds, run, speed } from './sample-runs.js';
import { TINY_BENCH } from '../support/tiny-bench.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ratelab-bench-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const baseline = run([
  speed('reference/hot-key', rounds(1, 0)),
  speed('token-bucket/hot-key', rounds(1, 0.02)),
  memory('token-bucket', 56),
]);
const same = run([
  speed('reference/hot-key', rounds(1, 0)),
  speed('token-bucket/hot-key', rounds(1.01, 0.02)),
  memory('token-bucket', 56),
]);
const slower = run([
  speed('reference/hot-key', rounds(1, 0)),
  speed('token-bucket/hot-key', rounds(0.6, 0.02)),
  memory('token-bucket', 56),
]);

describe('ratelab bench: baseline file', () => {
  it('round-trips a run through JSON', () => {
    expect(parseBenchRun(JSON.stringify(baseline), 'base.json')).toEqual(baseline);
  });

  it.each([
    { text: '{ not json', error: /^base\.json: not JSON: / },
    { text: '[]', error: /^base\.json: format: expected "ratelab-bench\/1"/ },
    {
      text: JSON.stringify({ ...baseline, format: 'other/2' }),
      error: /^base\.json: format: expected "ratelab-bench\/1" .*got "other\/2"$/,
    },
    {
      text: JSON.stringify({ ...baseline, figures: [{ ...baseline.figures[1], ratio: 'fast' }] }),
      error: /^base\.json: figures\.0\.ratio: /,
    },
    { text: JSON.stringify({ ...baseline, machine: undefined }), error: /^base\.json: machine: / },
  ])('says what is wrong in one line: $error', ({ text, error }) => {
    expect(() => parseBenchRun(text, 'base.json')).toThrow(error);
    try {
      parseBenchRun(text, 'base.json');
    } catch (thrown) {
      expect((thrown as Error).message).not.toContain('\n');
      expect(thrown).toMatchObject({ code: 'INVALID_BASELINE' });
    }
  });

  it('names a missing file', async () => {
    await expect(readBenchRun('missing.json', dir)).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
      message: 'missing.json: no such baseline file (create one with --update-baseline)',
    });
  });
});

describe('ratelab bench: exit codes', () => {
  it('exits 0 without a regression and prints before / after / change', async () => {
    const io = bufferIO();
    expect(await finishBench(same, baseline, { baseline: 'base.json', maxRegression: '10%' }, io)).toBe(0);
    expect(io.out()).toMatch(/token-bucket\/hot-key\s+1\.000x\s+1\.010x\s+\+1\.0%/);
    expect(io.out()).toContain('no regression beyond 10%');
  });

  it('exits 1 on a regression and names it', async () => {
    const io = bufferIO();
    expect(await finishBench(slower, baseline, { baseline: 'base.json', maxRegression: '10%' }, io)).toBe(1);
    expect(io.out()).toMatch(/token-bucket\/hot-key\s+1\.000x\s+0\.600x\s+-40\.0%\s+<0\.001\s+REGRESSED/);
    expect(io.out()).toContain('1 figure regressed beyond 10%');
  });

  it('tolerates the same drop under a generous threshold', async () => {
    expect(await finishBench(slower, baseline, { baseline: 'base.json', maxRegression: '50%' }, bufferIO())).toBe(0);
  });

  it('exits 2 with one line on a missing or malformed baseline, before measuring anything', async () => {
    await writeFile(join(dir, 'bad.json'), '{"format": "ratelab-bench/1", "figures": 3}');
    for (const [file, message] of [
      ['missing.json', 'ratelab: missing.json: no such baseline file (create one with --update-baseline)\n'],
      ['bad.json', 'ratelab: bad.json: createdAt: Invalid input: expected string, received undefined\n'],
    ] as const) {
      const io = bufferIO({ cwd: dir });
      expect(await runCli(['bench', '--quick', '--baseline', file], io)).toBe(2);
      expect(io.err()).toBe(message);
      expect(io.out()).toBe('');
    }
  });

  it.each<{ what: string; figures: () => ReturnType<typeof speed>[]; message: RegExp }>([
    {
      what: '300,000 figures (larger than any run writes)',
      figures: () => Array.from({ length: 300_000 }, (_, i) => speed(`token-bucket/w${i}`, [1])),
      message:
        /^ratelab: base\.json: \d+\.\d MiB, larger than a saved run can be \(16 MiB\): not a baseline written by bench --json\n$/,
    },
    {
      what: '20,000 figures in under 16 MiB',
      figures: () => Array.from({ length: 20_000 }, (_, i) => speed(`token-bucket/w${i}`, [1])),
      message:
        /^ratelab: base\.json: 20,000 figures, more than a run makes \(at most 10,000\): not a baseline written by bench --json\n$/,
    },
    {
      what: 'a figure twice',
      figures: () => [speed('token-bucket/hot-key', [1]), speed('token-bucket/hot-key', [2])],
      message: /^ratelab: base\.json: figures\.1: "token-bucket\/hot-key" comes twice\n$/,
    },
    {
      what: 'no figure this run makes (it would pass on nothing)',
      figures: () => [speed('reference/other-workload', [1]), speed('leaky-bucket/hot-key', [1])],
      message:
        /^ratelab: base\.json: shares no figure with this run \(it has reference\/other-workload, leaky-bucket\/hot-key; this run makes reference\/hot-key, token-bucket\/hot-key, \.\.\.\): nothing would be compared; run with the baseline's flags, or rewrite it with --update-baseline\n$/,
    },
  ])('a baseline with $what: exit 2 naming the file, before measuring anything', async ({ figures, message }) => {
    await writeFile(join(dir, 'base.json'), JSON.stringify(run(figures())));
    const io = bufferIO({ cwd: dir });
    expect(await runCli([...TINY_BENCH, '--baseline', 'base.json'], io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.out()).toBe('');
  });

  it('renders a comparison with 300,000 rows (no array spread into a call), and bars of as many figures', async () => {
    const huge = run(Array.from({ length: 300_000 }, (_, i) => speed(`token-bucket/w${i}`, [1])));
    const io = bufferIO({ cwd: dir });
    expect(await finishBench(same, huge, { baseline: 'base.json', maxRegression: '10%' }, io)).toBe(0);
    expect(io.out()).toMatch(/token-bucket\/w299999 .*gone/);
    const subjects = run(Array.from({ length: 300_000 }, (_, i) => speed(`subject${i}/hot-key`, [1])));
    const bars = renderSpeedBars(subjects, new Chalk({ level: 0 }), 80)
      .trimEnd()
      .split('\n');
    expect(bars).toHaveLength(2 + 300_000); // the title, the workload's heading, a bar per subject
  });

  it('a baseline sharing some figures with the run compares those, and lists the rest as gone', async () => {
    await writeFile(
      join(dir, 'base.json'),
      JSON.stringify(run([speed('token-bucket/hot-key', rounds(1, 0.02)), speed('leaky-bucket/hot-key', [1])])),
    );
    const io = bufferIO({ cwd: dir });
    expect(await runCli([...TINY_BENCH, '--baseline', 'base.json', '--max-regression', '99%'], io)).toBe(0);
    expect(io.out()).toMatch(/leaky-bucket\/hot-key .*gone/);
  });

  it.each([
    [['--max-regression', 'ten'], /^ratelab: --max-regression: expected a percentage/],
    [
      ['--algorithms', 'token-bucket,leaky'],
      /^ratelab: --algorithms: expected one of token-bucket, gcra, sliding-log, sliding-counter, fixed-window, got "leaky"/,
    ],
    [['--keys', '1e4,-3'], /^ratelab: --keys: expected a whole number from 1 to 10000000, got "-3"/],
    [['--rounds', '1'], /^ratelab: --rounds: expected a whole number from 2 to 100/],
    [['--update-baseline'], /^ratelab: --update-baseline: say which file with --baseline <file>/],
    [['--time', '10ms'], /^ratelab: --time: 10ms over 8 rounds leaves under 5 ms per round/],
    [
      ['--format', 'junit'],
      /^ratelab: --format: expected one of ratelab, github-action-benchmark, github-action-benchmark-memory, got "junit"/,
    ],
  ])('exits 2 on bad usage %j', async (args, message) => {
    const io = bufferIO({ cwd: dir });
    expect(await runCli(['bench', '--quick', ...args], io)).toBe(2);
    expect(io.err()).toMatch(message);
  });
});

describe('ratelab bench: outputs', () => {
  it('--update-baseline rewrites the file atomically with the new run, leaving no temporary file', async () => {
    await writeFile(join(dir, 'base.json'), JSON.stringify(baseline));
    const io = bufferIO({ cwd: dir });
    expect(await finishBench(slower, baseline, { baseline: 'base.json', updateBaseline: true }, io)).toBe(0);
    expect(parseBenchRun(await readFile(join(dir, 'base.json'), 'utf8'), 'base.json')).toEqual(slower);
    expect(await readdir(dir)).toEqual(['base.json']);
  });

  it('--json - puts the run on stdout and the report on stderr', async () => {
    const io = bufferIO();
    await finishBench(same, undefined, { json: true }, io);
    expect(parseBenchRun(io.out(), 'stdout')).toEqual(same);
    expect(io.err()).toContain('Decisions per second');
  });

  it('--csv writes one RFC 4180 row per figure', async () => {
    const io = bufferIO({ cwd: dir });
    await finishBench(same, undefined, { csv: 'figures.csv' }, io);
    const lines = (await readFile(join(dir, 'figures.csv'), 'utf8')).trim().split('\n');
    expect(lines[0]).toBe('name,subject,workload,unit,value,ratio,spread,samples,p50_ns,p99_ns,admitted,note');
    expect(lines).toHaveLength(1 + same.figures.length);
    expect(lines[3]).toBe('token-bucket/memory,token-bucket,memory,B/key,56,0.56,0,1,,,,');
  });

  it('reports the goals: met, not met, and what the run did not measure', async () => {
    const io = bufferIO();
    await finishBench(
      run([speed('token-bucket/hot-key', rounds(0.8, 0)), memory('token-bucket', 56)]),
      undefined,
      { goals: true },
      io,
    );
    expect(io.out()).toMatch(/token-bucket on hot-key: x reference\s+>= 1\s+0\.80\s+NOT MET/);
    expect(io.out()).toMatch(/token-bucket memory per key\s+<= 60 B\s+56\.0 B\s+met/);
    expect(io.out()).toMatch(/\d+ goals not measured in this run/);
  });

  it("judges a second limit's cost by the ratio of the two subjects' ratios to the reference", async () => {
    const within = bufferIO();
    const twice = [
      speed('token-bucket:1-limit/hot-key', rounds(0.6, 0)),
      speed('token-bucket:2-limits/hot-key', rounds(0.3, 0)),
    ];
    await finishBench(run(twice), undefined, { goals: true }, within);
    expect(within.out()).toMatch(
      /token-bucket on hot-key: time of 2 limits x 1 limit \(consume\)\s+<= 2\.2\s+2\.00\s+met/,
    );
    const over = bufferIO();
    const thrice = [
      speed('token-bucket:1-limit/hot-key', rounds(0.6, 0)),
      speed('token-bucket:2-limits/hot-key', rounds(0.2, 0)),
    ];
    await finishBench(run(thrice), undefined, { goals: true }, over);
    expect(over.out()).toMatch(
      /token-bucket on hot-key: time of 2 limits x 1 limit \(consume\)\s+<= 2\.2\s+3\.00\s+NOT MET/,
    );
  });

  it.each([
    [0.3, '2.00', 'met', 'an event per decision doubling its time'],
    [0.2, '3.00', 'NOT MET', 'tripling it'],
  ])('judges a listener’s cost as a second limit’s: x ref %s -> %s, %s (%s)', async (ratio, times, verdict) => {
    const io = bufferIO();
    const figures = [
      speed('token-bucket:1-limit/hot-key', rounds(0.6, 0)),
      speed('token-bucket:listener/hot-key', rounds(ratio, 0)),
    ];
    await finishBench(run(figures), undefined, { goals: true }, io);
    expect(io.out()).toMatch(
      new RegExp(
        `token-bucket on hot-key: time with a no-op listener x none \\(consume\\)\\s+<= 2\\.2\\s+${times}\\s+${verdict}`,
      ),
    );
  });

  it('draws the bars under the tables, within 80 columns, and the per-round chart only for a person at a terminal', async () => {
    const twoAlgorithms = run([
      speed('reference/hot-key', rounds(1, 0)),
      speed('token-bucket/hot-key', rounds(0.9, 0.05)),
      speed('gcra/hot-key', rounds(1.1, 0.05)),
      memory('token-bucket', 56),
      memory('gcra', 28),
    ]);
    const terminal = bufferIO({ tty: true, env: { NO_COLOR: '1', COLUMNS: '80' } });
    await finishBench(twoAlgorithms, undefined, {}, terminal);
    const out = terminal.out();
    expect(out).toMatch(/speed \(x ref per workload; longer is faster\)\nhot-key\n {2}reference +[█-▏]+ 1\.00x\n/);
    expect(out).toMatch(/\n {2}gcra {9}█{59} 1\.10x\n/); // the largest ratio spans the 80 columns
    expect(out).toMatch(
      /memory per key \(B; shorter is smaller\)\ntoken-bucket █{60} 56\.0 B\ngcra {9}█{30} 28\.0 B\n/,
    );
    expect(out.indexOf('memory per key (B')).toBeGreaterThan(out.indexOf('Memory per key')); // under the memory table
    expect(out).toContain('x reference per round on hot-key');
    const barLines = out.split('\n').filter((line) => /[█-▏]/.test(line));
    expect(barLines).toHaveLength(5);
    for (const line of barLines) expect(line.length).toBeLessThanOrEqual(80);
    const piped = bufferIO();
    await finishBench(twoAlgorithms, undefined, {}, piped);
    expect(piped.out()).toContain('gcra  ');
    expect(piped.out()).toMatch(/█ 1\.10x/);
    expect(piped.out()).not.toContain('per round on');
  });

  it('--quiet draws no bar', async () => {
    const io = bufferIO({ tty: true });
    await finishBench(same, undefined, { quiet: true }, io);
    expect(io.out()).not.toMatch(/[█-▏]/);
    expect(io.out()).toBe(`bench: ${same.figures.length} figures measured (no --baseline to compare with)\n`);
  });

  it('explains a missed goal on the ratio to the reference', async () => {
    const io = bufferIO();
    await finishBench(run([speed('gcra/hot-key', rounds(0.8, 0))]), undefined, { goals: true }, io);
    expect(io.out()).toContain('Why x reference < 1:');
  });

  it("prints ratelab's goals and the internals paragraph only with --goals", async () => {
    const io = bufferIO();
    await finishBench(run([speed('gcra/hot-key', rounds(0.8, 0)), memory('gcra', 56)]), undefined, {}, io);
    expect(io.out()).not.toMatch(/Goals|NOT MET|Why x reference/);
    expect(io.out()).toContain('Decisions per second');
  });

  it("marks a subject whose admitted share differs from the reference's", async () => {
    const fewer = { ...speed('gcra/hot-key', rounds(1, 0)), admitted: 0.66 };
    const io = bufferIO();
    await finishBench(
      run([
        { ...speed('reference/hot-key', rounds(1, 0)), admitted: 1 },
        speed('token-bucket/hot-key', rounds(1, 0)),
        fewer,
      ]),
      undefined,
      {},
      io,
    );
    expect(io.out()).toMatch(/gcra .* 66%\s+!\n/);
    expect(io.out()).toMatch(/token-bucket .* 100%\n/);
    expect(io.out()).toContain('! admitted a different share than the reference');
  });

  it('prints how each peer was configured', async () => {
    const io = bufferIO();
    await finishBench(
      {
        ...same,
        peers: [
          {
            name: 'limiter',
            configuration: 'new RateLimiter({"tokensPerInterval":1000000000000,"interval":3600000}) per key',
          },
        ],
      },
      undefined,
      {},
      io,
    );
    expect(io.out()).toContain(
      'limiter: new RateLimiter({"tokensPerInterval":1000000000000,"interval":3600000}) per key\n',
    );
  });
});

describe('ratelab bench --quiet', () => {
  it('prints only the verdict when nothing regressed', async () => {
    const io = bufferIO();
    expect(await finishBench(same, baseline, { baseline: 'base.json', maxRegression: '10%', quiet: true }, io)).toBe(0);
    expect(io.out()).toBe('no regression beyond 10% against base.json (3 figures)\n');
    expect(io.err()).toBe('');
  });

  it('prints the regressed figures and the verdict', async () => {
    const io = bufferIO();
    expect(await finishBench(slower, baseline, { baseline: 'base.json', maxRegression: '10%', quiet: true }, io)).toBe(
      1,
    );
    const lines = io.out().trimEnd().split('\n');
    expect(lines).toHaveLength(4); // header, rule, the regressed row, the verdict
    expect(lines[2]).toMatch(/^token-bucket\/hot-key\s+1\.000x\s+0\.600x\s+-40\.0%\s+<0\.001\s+REGRESSED$/);
    expect(lines[3]).toBe('1 figure regressed beyond 10% against base.json');
  });

  it('prints one line without a baseline', async () => {
    const io = bufferIO();
    await finishBench(same, undefined, { quiet: true }, io);
    expect(io.out()).toBe('bench: 3 figures measured (no --baseline to compare with)\n');
  });
});

describe('ratelab bench --json with --baseline', () => {
  it.each([
    { now: same, verdict: 'pass', code: 0 },
    { now: slower, verdict: 'fail', code: 1 },
  ])('writes the comparison and the verdict ($verdict)', async ({ now, verdict, code }) => {
    const io = bufferIO({ cwd: dir });
    expect(
      await finishBench(now, baseline, { baseline: 'base.json', maxRegression: '10%', json: 'out.json' }, io),
    ).toBe(code);
    const written = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8')) as Record<string, unknown>;
    expect(written.verdict).toBe(verdict);
    expect(written.gate).toEqual({ baseline: 'base.json', maxRegression: 0.1, alpha: 0.05, regressions: code });
    const rows = written.comparison as Array<Record<string, unknown>>;
    expect(rows.map((row) => Object.keys(row))).toEqual(
      rows.map(() => ['figure', 'unit', 'before', 'after', 'change', 'p', 'verdict']),
    );
    const bucket = rows.find((row) => row.figure === 'token-bucket/hot-key');
    expect(bucket).toMatchObject({
      before: 1,
      after: now === same ? 1.01 : 0.6,
      verdict: now === same ? 'unchanged' : 'regressed',
    });
    // A memory figure rests on one probe: no p-value, written as null.
    expect(rows.find((row) => row.figure === 'token-bucket/memory')).toMatchObject({ change: 0, p: null });
    // The file still serves as a baseline.
    expect(parseBenchRun(JSON.stringify(written), 'out.json')).toEqual(now);
  });

  it('has no comparison without a baseline', async () => {
    const io = bufferIO();
    await finishBench(same, undefined, { json: true }, io);
    expect(JSON.parse(io.out())).not.toHaveProperty('comparison');
  });
});
