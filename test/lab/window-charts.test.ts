import { describe, expect, it } from 'vitest';
import { compareCommand, type CompareOptions as CompareFlags } from '../../src/cli/commands/compare.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';
import { rowLabel, rowOf, windowScale } from '../../src/report/text/window-scale.js';
import stripAnsi from '../../src/report/text/strip-ansi.js';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

interface FocusJson {
  scenario: string;
  key: string;
  worst: boolean;
  chart: { fromMs: number; widthMs: number; count: number } | null;
  strip: { fromMs: number; widthMs: number; count: number } | null;
  algorithms: {
    algorithm: string;
    window: number[];
    admitted?: number[];
    denied?: number[];
    limits?: { name: string; window: number[] }[];
  }[];
  exact?: { window: number[]; admitted?: number[]; denied?: number[] };
}

async function focusOf(flags: Omit<CompareFlags, 'json' | 'measure'>): Promise<FocusJson[]> {
  const io = bufferIO({ cwd: ROOT });
  expect(await compareCommand({ ...flags, measure: false, json: '-' }, io)).toBe(EXIT.OK);
  return (JSON.parse(io.out()) as { focus: FocusJson[] }).focus;
}

const peakOf = (focus: FocusJson, algorithm: string) =>
  Math.max(...(focus.algorithms.find((a) => a.algorithm === algorithm)?.window ?? []));

describe('window charts: one scale, the limit on a row', () => {
  it.each([
    // peak, rows at most, step, rows
    [2.0, 10, 0.2, 10],
    [1.99, 10, 0.2, 10],
    [1.0, 10, 0.1, 10],
    [0.3, 10, 0.1, 10],
    [2.0, 5, 0.5, 4],
    [1.0, 5, 0.2, 5],
    [4.0, 5, 1, 4],
  ])('peak %s in %s rows: step %s, %s rows, 1.0 exactly on a labelled row', (peak, maxRows, step, rows) => {
    const scale = windowScale(peak, maxRows);
    expect(scale).toMatchObject({ step, rows });
    expect(scale.top).toBeGreaterThanOrEqual(peak);
    expect(rowOf(scale, 1) * scale.step).toBeCloseTo(1, 12);
    expect(rowLabel(scale, rowOf(scale, 1), 9).trim()).toMatch(/^limit 1\.0+$/);
  });

  it('draws every algorithm of a scenario on the same rows (no colour: one panel each, same labels)', async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(await compareCommand({ scenarios: ['sliding-counter-worst'], measure: false }, io)).toBe(EXIT.OK);
    const chart = io.out().split('sliding-counter-worst: worst key client')[1] ?? '';
    const panels = chart.split(/^[a-z= -]+:$/m).slice(1);
    expect(panels.length).toBeGreaterThanOrEqual(3);
    const labels = panels.map((p) =>
      p
        .split('\n')
        .filter((l) => /[┤└]/.test(l))
        .map((l) => l.split(/[┤└]/)[0]),
    );
    for (const l of labels) expect(l).toEqual(labels[0]);
    expect(labels[0]).toContain('limit 1.0');
    for (const line of chart.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('names identical series together in the coloured legend', async () => {
    const io = bufferIO({ cwd: ROOT, env: { FORCE_COLOR: '1' } });
    expect(await compareCommand({ scenarios: ['sliding-counter-worst'], measure: false }, io)).toBe(EXIT.OK);
    const out = stripAnsi(io.out());
    expect(out).toContain('── token-bucket = gcra');
    expect(out).toContain('── sliding-log = exact');
    expect(out).toMatch(/^ *limit 1\.0┼/m);
  });
});

describe('window charts: the lesson', () => {
  it.each([
    // scenario, algorithm, peak of the trailing window / limit
    ['edge-attack', 'fixed-window', 2],
    ['edge-attack', 'sliding-log', 1],
    ['edge-attack', 'token-bucket', 1],
    ['sliding-counter-worst', 'sliding-counter', 1.99],
    ['sliding-counter-worst', 'sliding-log', 1],
  ])('%s: %s peaks at %sx, whatever the column width', async (scenario, algorithm, peak) => {
    for (const bucket of [undefined, '1s', '500ms']) {
      const [focus] = await focusOf({ scenarios: [scenario], ...(bucket ? { bucket } : {}) });
      expect(focus && peakOf(focus, algorithm)).toBeCloseTo(peak, 6);
      expect(Math.max(...(focus?.exact?.window ?? []))).toBeLessThanOrEqual(1);
    }
  });

  it.each([
    // scenario, worst key
    ['zipf-many-keys', 'user:0'],
    ['fleet', 'api-key'],
    ['edge-attack', 'attacker'],
  ])('%s charts its worst key, %s, named in the title, against the per-key limit', async (scenario, key) => {
    const [focus] = await focusOf({ scenarios: [scenario] });
    expect(focus).toMatchObject({ key, worst: true });
    const io = bufferIO({ cwd: ROOT });
    await compareCommand({ scenarios: [scenario], measure: false }, io);
    expect(io.out()).toContain(`${scenario}: worst key ${key}; most admitted in a trailing`);
  });

  it("a composite's followed key is judged by the conjunction of its limits, as its table is: the sliding log is the exact oracle there too", async () => {
    // composite-burst-and-hour: 20/1s and 1000/1h. An oracle of the first limit alone would
    // admit 20 a second all hour; the hourly limit stops the client after 1,000.
    const [focus] = await focusOf({ scenarios: ['composite-burst-and-hour'], strip: true });
    const log = focus?.algorithms.find((a) => a.algorithm === 'sliding-log');
    expect(log?.window).toEqual(focus?.exact?.window);
    expect(log?.admitted).toEqual(focus?.exact?.admitted);
    // 20 a second from the start reach the hour's 1,000 within its first 100 s column; the
    // oracle admits nothing after (an oracle of 20/1s alone charted 1.0 in every column).
    expect(focus?.exact?.window[0]).toBe(1);
    expect(Math.max(...(focus?.exact?.window.slice(1) ?? [1]))).toBe(0);
    const io = bufferIO({ cwd: ROOT, env: { NO_COLOR: '1' } });
    await compareCommand({ scenarios: ['composite-burst-and-hour'], measure: false }, io);
    expect(stripAnsi(io.out())).toMatch(/^sliding-log = exact:$/m);
  });

  it("a composite's followed key is charted under each of its limits, each chart's peak its row's worst window under that limit", async () => {
    const io = bufferIO({ cwd: ROOT });
    expect(await compareCommand({ scenarios: ['composite-burst-and-hour'], measure: false, json: '-' }, io)).toBe(
      EXIT.OK,
    );
    const report = JSON.parse(io.out()) as {
      focus: FocusJson[];
      rows: { algorithm: string; limits: { name: string; ratio: number }[] }[];
    };
    const [focus] = report.focus;
    expect(report.rows).toHaveLength(5);
    for (const row of report.rows) {
      const charted = focus?.algorithms.find((a) => a.algorithm === row.algorithm)?.limits;
      // why: the worst key is the one whose window was worst, so its chart reaches each limit's worst ratio
      expect(charted?.map((l) => [l.name, Math.max(...l.window)])).toEqual(
        row.limits.map((l) => [l.name, expect.closeTo(l.ratio, 2)]),
      );
    }
    const text = bufferIO({ cwd: ROOT, env: { NO_COLOR: '1' } });
    await compareCommand({ scenarios: ['composite-burst-and-hour'], measure: false }, text);
    expect(text.out()).toContain('most admitted in a trailing 1s window');
    expect(text.out()).toContain('(1.0 = 20 per 1s)');
    expect(text.out()).toContain('most admitted in a trailing 1h window');
    expect(text.out()).toContain('(1.0 = 1000 per 1h)');
  });
});

describe('--bucket is honoured exactly or refused', () => {
  it.each([
    // flags, columns of exactly this width, count
    [{ bucket: '200ms' }, 200, 60],
    [{ bucket: '1s' }, 1000, 12],
    [{ bucket: '1ms', from: '900ms', to: '960ms' }, 1, 60],
    [{}, 200, 60],
  ])('%o: columns of %s ms', async (flags, widthMs, count) => {
    const [focus] = await focusOf({ scenarios: ['edge-attack'], ...flags });
    expect(focus?.chart).toMatchObject({ widthMs, count });
  });

  it.each([
    [
      ['--bucket', '1ms'],
      /^ratelab: --bucket: 1ms would need 12000 chart columns .* use --bucket 177ms or more, or zoom with --from\/--to$/m,
    ],
    [['--bucket', '50ms'], /^ratelab: --bucket: 50ms would need 240 chart columns/m],
    [['--from', '2s', '--to', '1s'], /^ratelab: --from: must be before --to/m],
    [['--to', '20s'], /^ratelab: --to: 20s is outside the run/m],
    [['--from', 'soon'], /^ratelab: --from: expected a duration/m],
    [
      ['--strip', '--key', 'nobody'],
      /^ratelab: --key: no requests for key "nobody" in edge-attack \(its worst key is "attacker"\)$/m,
    ],
  ])('refuses %j with exit 2 and one line naming the flag', async (args, message) => {
    const io = bufferIO({ cwd: ROOT });
    expect(await run(['compare', 'edge-attack', '--no-measure', ...args], io)).toBe(EXIT.BAD_INPUT);
    expect(io.err()).toMatch(message);
    expect(io.out()).toBe('');
  });
});

describe('the request strip', () => {
  it('edge-attack 900ms-1100ms: both bursts admitted by the fixed window, the second denied by the sliding log', async () => {
    const [focus] = await focusOf({ scenarios: ['edge-attack'], strip: true, from: '900ms', to: '1100ms' });
    const grid = focus?.strip;
    expect(grid).toBeDefined();
    const cell = (ms: number) => Math.floor((ms - (grid?.fromMs ?? 0)) / (grid?.widthMs ?? 1));
    const row = (name: string) => focus?.algorithms.find((a) => a.algorithm === name);
    expect(cell(999)).toBeLessThan(cell(1000));
    const cases = [
      // algorithm, admitted at 999 ms, admitted at 1000 ms, denied at 1000 ms
      ['fixed-window', 100, 100, 0],
      ['sliding-log', 100, 0, 100],
      ['token-bucket', 100, 0, 100],
      ['sliding-counter', 100, 0, 100],
    ] as const;
    for (const [name, before, after, denied] of cases) {
      expect([
        row(name)?.admitted?.[cell(999)],
        row(name)?.admitted?.[cell(1000)],
        row(name)?.denied?.[cell(1000)],
      ]).toEqual([before, after, denied]);
    }
    expect(focus?.exact?.denied?.[cell(1000)]).toBe(100);
  });

  it('prints a row per algorithm and the exact oracle, the window edge between the bursts, within 80 columns', async () => {
    const io = bufferIO({ cwd: ROOT, env: { NO_COLOR: '1' } });
    expect(
      await run(['compare', 'edge-attack', '--no-measure', '--strip', '--from', '900ms', '--to', '1100ms'], io),
    ).toBe(EXIT.OK);
    const strip = io.out().split('edge-attack: requests of worst key attacker')[1] ?? '';
    expect(strip).toMatch(/^fixed-window +·*#\|#·*$/m);
    expect(strip).toMatch(/^sliding-log +·*#\|x·*$/m);
    expect(strip).toMatch(/^exact +·*#\|x·*$/m);
    expect(strip).toMatch(/^ +900ms +1s +1\.1s$/m);
    expect(strip).toContain('# admitted  x denied  * both  · none  | window edge (every 1s)');
    for (const line of strip.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
  });

  it('follows --key and, without --from/--to, spans the run around the worst window', async () => {
    const [focus] = await focusOf({ scenarios: ['zipf-many-keys'], strip: true, key: 'user:5' });
    expect(focus).toMatchObject({ key: 'user:5', worst: false });
    expect(focus?.strip?.count).toBeGreaterThan(0);
    const requests =
      (focus?.exact?.admitted ?? []).reduce((a, b) => a + b, 0) +
      (focus?.exact?.denied ?? []).reduce((a, b) => a + b, 0);
    expect(requests).toBeGreaterThan(0);
  });
});
