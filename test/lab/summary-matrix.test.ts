import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { summarise } from '../../src/report/text/compare-summary.js';
import { MAX_WIDTH, OVER_MARK, renderComparison } from '../../src/report/text/compare-table.js';
import stripAnsi from '../../src/report/text/strip-ansi.js';
import { MATRIX_LEGEND, renderSummaryMatrix } from '../../src/report/text/summary-matrix.js';
import { wrapWords } from '../../src/report/text/wrap.js';
import type { ComparisonRow, WorkloadComparison } from '../../src/sim/comparison.js';
import { comparisonRow } from '../support/comparison-row.js';

const plain = new Chalk({ level: 0 });
const coloured = new Chalk({ level: 1 });
const RED = '\u001b[31m';
const GREEN = '\u001b[32m';

const row = comparisonRow;

/** A workload whose worst windows are all for key `k` and end at 1,247 ms. */
function workload(name: string, rows: ComparisonRow[]): WorkloadComparison {
  return {
    name,
    description: 'a test workload',
    policy: { limit: 100, windowMs: 1000 },
    rows: rows.map((r) => ({ ...r, scenario: name })),
    timelines: [],
    worstWindows: rows.map((r) => ({ key: 'k', endMs: 1247, units: Math.round(r.worstWindowRatio * 100) })),
    notes: [],
  };
}

const EDGE = workload('edge-attack', [row('token-bucket', 1, 0), row('sliding-log', 1, 0), row('fixed-window', 2, 50)]);
const STEADY = workload('steady-under', [
  row('token-bucket', 0.8, 0),
  row('sliding-log', 0.8, 0),
  row('fixed-window', 0.8, 0),
]);

function lines(text: string): string[] {
  return stripAnsi(text).trimEnd().split('\n');
}

function widest(text: string): number {
  return Math.max(...lines(text).map((line) => line.length));
}

describe('the summary matrix', () => {
  it('has a row per workload and a cell per contender: worst window, a mark above the limit, error %', () => {
    const out = renderSummaryMatrix([EDGE, STEADY], plain, 100);
    expect(lines(out)).toEqual([
      'scenario      token-bucket   sliding-log  fixed-window',
      '------------  ------------  ------------  ------------',
      'edge-attack   1.00x   0.0%  1.00x   0.0%  2.00x▲ 50.0%',
      'steady-under  0.80x   0.0%  0.80x   0.0%  0.80x   0.0%',
      MATRIX_LEGEND,
    ]);
  });

  it.each([
    { ratio: 2, marked: true, colour: RED },
    { ratio: 1.01, marked: true, colour: RED },
    { ratio: 1, marked: false, colour: GREEN },
    { ratio: 0.5, marked: false, colour: GREEN },
  ])(
    'a worst window of $ratio x is marked: $marked (without colour too), coloured $colour with colour',
    ({ ratio, marked, colour }) => {
      const result = [workload('w', [row('fixed-window', ratio, 0)])];
      const body = (text: string) => lines(text)[2] as string;
      expect(body(renderSummaryMatrix(result, plain, 100)).includes(OVER_MARK)).toBe(marked);
      expect(renderSummaryMatrix(result, coloured, 100).split('\n')[2]).toContain(`${colour}${ratio.toFixed(2)}x`);
    },
  );

  it('leaves a contender that did not run in a workload as -', () => {
    const mine = workload('mine', [row('token-bucket', 1, 0), row('my-limiter.mjs', 1.5, 3)]);
    const out = lines(renderSummaryMatrix([EDGE, mine], plain, 100));
    expect(out[0]).toMatch(/my-limiter\.mjs$/);
    expect(out[2]).toMatch(/ -$/);
    expect(out[3]).toMatch(/^mine +1\.00x {3}0\.0% +- +- +1\.50x▲ {2}3\.0%$/);
  });

  it.each([40, 60, 80, 100])(
    'fits %i columns by splitting the contenders over blocks, each with every workload',
    (width) => {
      const names = ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window', 'my-limiter.mjs'];
      const results = ['sliding-counter-worst', 'on-off-heavy-tailed'].map((name) =>
        workload(
          name,
          names.map((n, i) => row(n, 1 + i / 10, i)),
        ),
      );
      const out = renderSummaryMatrix(results, plain, width);
      expect(widest(out)).toBeLessThanOrEqual(width);
      for (const name of names) expect(out).toContain(name);
      const blocks = lines(out).filter((line) => line.startsWith('scenario')).length;
      expect(out.split('sliding-counter-worst').length - 1).toBe(blocks);
    },
  );

  it('is one block when it fits', () => {
    expect(
      lines(renderSummaryMatrix([EDGE, STEADY], plain, 80)).filter((line) => line.startsWith('scenario')),
    ).toHaveLength(1);
  });

  it('closes with the median memory and speed per contender when measured, each labelled, and says what they are', () => {
    const measured = (name: string, bytes: number[], speed: number[]) =>
      workload(name, [
        row('gcra', 1, 0, { bytesPerKey: bytes[0], speedRatio: speed[0] }),
        row('sliding-log', 1, 0, { bytesPerKey: bytes[1], speedRatio: speed[1] }),
      ]);
    const results = [
      measured('a', [80, 1400], [1.1, 0.3]),
      measured('b', [84, 1300], [0.9, 0.5]),
      measured('c', [88, 1395], [1, 0.4]),
    ];
    const out = lines(renderSummaryMatrix(results, plain, 80));
    expect(out).toContain('B/key (median)                  84          1395');
    expect(out).toContain('speed x ref (median)         1.00x         0.40x');
    expect(out.join('\n')).toMatch(/^B\/key: heap bytes per key; x ref: speed over a reference's in the same rounds$/m);
  });

  it.each([
    { measured: { bytesPerKey: 80 }, shown: ['B/key (median)'], hidden: ['speed x ref'] },
    { measured: { speedRatio: 1.2 }, shown: ['speed x ref (median)'], hidden: ['B/key'] },
    { measured: {}, shown: [], hidden: ['B/key', 'speed x ref'] },
  ])('shows only the cost rows with figures: $measured', ({ measured, shown, hidden }) => {
    const out = renderSummaryMatrix([workload('a', [row('gcra', 1, 0, measured)])], plain, 80);
    for (const label of shown) expect(out).toContain(label);
    for (const label of hidden) expect(out).not.toContain(label);
  });
});

describe('the comparison table', () => {
  const measured = { bytesPerKey: 84.4, stateBytesPerKey: 16, opsPerSec: 3_600_000 };

  it.each([
    {
      name: 'no measurement, one key',
      more: {},
      absent: ['B/key', 'decisions/s', 'x ref', 'fairness'],
      present: ['state B'],
    },
    {
      name: 'measured, no speed ratio',
      more: measured,
      absent: ['x ref', 'fairness'],
      present: ['B/key', 'decisions/s', 'state B'],
    },
    {
      name: 'measured with a speed ratio',
      more: { ...measured, speedRatio: 0.36 },
      absent: ['fairness'],
      present: ['B/key', 'decisions/s', 'x ref'],
    },
    { name: 'many keys', more: { fairness: 0.998, keys: 100 }, absent: ['B/key'], present: ['fairness'] },
    {
      name: 'a limiter with no state account',
      more: { stateBytesPerKey: null },
      absent: ['state B', 'B/key'],
      present: ['worst win'],
    },
  ])('leaves out the columns with no figure ($name)', ({ more, absent, present }) => {
    const out = stripAnsi(
      renderComparison(workload('w', [row('gcra', 1, 0, { stateBytesPerKey: 16, ...more })]), plain, 100),
    );
    for (const header of absent) expect(out).not.toContain(header);
    for (const header of present) expect(out).toContain(header);
  });

  it('says which speed figure to rank by when the ratio is shown', () => {
    const out = renderComparison(workload('w', [row('gcra', 1, 0, { ...measured, speedRatio: 0.36 })]), plain, 100);
    expect(out).toMatch(/^gcra .* 3\.6M +0\.36x$/m);
    expect(out).toContain('x ref: decisions/s as a ratio to a reference measured in the same rounds; rank by it');
  });

  it.each([80, 100])(
    'fits %i columns with every column shown, the memory and speed in a second table when needed',
    (width) => {
      const rows = ['token-bucket', 'sliding-counter', 'my-limiter.mjs'].map((name) =>
        row(name, 1.99, 27.7, {
          ...measured,
          offered: 199_815,
          admitted: 179_845,
          denied: 19_970,
          falseAdmits: 14_353,
          falseDenials: 12_547,
          fairness: 0.999,
          speedRatio: 1.04,
          keys: 24_602,
        }),
      );
      const out = renderComparison(workload('zipf-many-keys', rows), plain, width);
      expect(widest(out)).toBeLessThanOrEqual(width);
      for (const header of ['offered', 'worst win', 'fairness', 'B/key', 'state B', 'decisions/s', 'x ref'])
        expect(out).toContain(header);
    },
  );

  it('never runs past 100 columns, even on a wider terminal', () => {
    const long = workload('w', [row('gcra', 1, 0)]);
    long.description = 'word '.repeat(60);
    expect(widest(renderComparison(long, plain, 200))).toBeLessThanOrEqual(MAX_WIDTH);
  });
});

describe('the lesson sentence', () => {
  it.each([
    {
      result: EDGE,
      sentence:
        'edge-attack: fixed-window let the most through in one 1s window, 2.00x the limit (200 against 100, key "k", up to 1.247s); token-bucket and sliding-log stayed within it.',
    },
    {
      result: STEADY,
      sentence:
        'steady-under: every algorithm stayed within the limit in every 1s window (at most 0.80x, key "k", up to 1.247s) and decided exactly as the exact sliding log would.',
    },
    {
      result: workload('steady-over', [
        row('sliding-log', 1, 0),
        row('sliding-counter', 1, 40.2, { falseAdmits: 297, falseDenials: 306 }),
      ]),
      sentence:
        'steady-over: every algorithm stayed within the limit in every 1s window (at most 1.00x, key "k", up to 1.247s); sliding-counter differed most from the exact answer (40.2% of requests, 306 wrongly denied, 297 wrongly admitted).',
    },
    {
      result: { ...EDGE, worstWindows: [] },
      sentence:
        'edge-attack: fixed-window let the most through in one 1s window, 2.00x the limit (200 against 100); token-bucket and sliding-log stayed within it.',
    },
  ])('$sentence', ({ result, sentence }) => {
    expect(summarise(result)).toBe(sentence);
  });
});

describe('wrapWords', () => {
  it.each([
    { text: 'a b c', width: 80, indent: '', wrapped: ['a b c'] },
    { text: 'aaa bbb ccc', width: 7, indent: '', wrapped: ['aaa bbb', 'ccc'] },
    { text: 'aaa bbb ccc ddd', width: 7, indent: '  ', wrapped: ['aaa bbb', '  ccc', '  ddd'] },
    { text: 'a-very-long-key b', width: 5, indent: '  ', wrapped: ['a-very-long-key', '  b'] },
    { text: '', width: 10, indent: '', wrapped: [''] },
  ])('$text at $width', ({ text, width, indent, wrapped }) => {
    expect(wrapWords(text, width, indent)).toEqual(wrapped);
  });
});
