import { describe, expect, it } from 'vitest';
import { LINE_GLYPH, letterPlot, lettersFor, type PlotAxis } from '../../src/report/text/letter-plot.js';

const linear = (label: string): PlotAxis => ({ label, scale: 'linear', format: (v) => v.toFixed(0) });
const log = (label: string): PlotAxis => ({ label, scale: 'log', format: (v) => v.toFixed(0) });

/** The grid rows of a plot (the lines between the y title and the x axis), without their tick labels. */
function gridRows(lines: string[]): string[] {
  return lines.slice(1, -3).map((line) => line.replace(/^ *\d* [┤┼]/, ''));
}

describe('letterPlot', () => {
  it('puts each point at its cell: x grows rightwards, y upwards, the axes from 0 on a linear scale', () => {
    const lines = letterPlot({
      x: linear('x'),
      y: linear('y'),
      points: [
        { letter: 'A', x: 0, y: 10 },
        { letter: 'B', x: 10, y: 0 },
      ],
      width: 40,
      height: 5,
    });
    const rows = gridRows(lines);
    expect(rows).toHaveLength(5);
    expect(rows[0]).toBe('A'); // top-left: the least x, the most y
    expect(rows[4]?.trimEnd().endsWith('B')).toBe(true); // bottom-right
    expect(rows[4]?.length).toBe(40 - 2 - 2); // the grid spans the width left by the labels
  });

  it('sets coinciding letters side by side in the order given, kept inside the grid at its right edge', () => {
    const at = (x: number) => ['T', 'G', 'C'].map((letter) => ({ letter, x, y: 1 }));
    const rows = gridRows(
      letterPlot({ x: linear('x'), y: linear('y'), points: [...at(0), ...at(10)], width: 40, height: 3 }),
    );
    expect(rows[0]).toMatch(/^TGC +TGC$/);
  });

  it('joins a line series with dots and draws its points over them', () => {
    const points = [
      { x: 10, y: 10 },
      { x: 1000, y: 1000 },
    ];
    const rows = gridRows(
      letterPlot({
        x: log('limit'),
        y: log('bytes'),
        points: points.map((p) => ({ letter: 'S', ...p })),
        lines: [{ points }],
        width: 40,
        height: 5,
      }),
    );
    expect(rows[4]?.startsWith('S')).toBe(true);
    expect(rows[0]?.endsWith('S')).toBe(true);
    expect(rows[2]).toContain(LINE_GLYPH); // the diagonal passes the middle row
  });

  it('labels the ticks at the ends and the middle of each axis, and fits the width asked for', () => {
    const lines = letterPlot({
      x: log('limit'),
      y: log('B/key'),
      points: [
        { letter: 'A', x: 10, y: 100 },
        { letter: 'B', x: 10_000, y: 10_000 },
      ],
      width: 50,
      height: 5,
    });
    expect(lines[0]).toBe('B/key');
    expect(lines[1]).toMatch(/^10000 ┤/);
    expect(lines[3]).toMatch(/^ 1000 ┤/); // the middle row of a log axis: the geometric mean
    expect(lines[5]).toMatch(/^ {2}100 ┼/);
    expect(lines.at(-2)?.trim().split(/ +/)).toEqual(['10', '316', '10000']);
    expect(lines.at(-1)?.trim()).toBe('limit');
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(50);
  });

  it('leaves out what a log axis cannot draw (0, negative) and any NaN', () => {
    const rows = gridRows(
      letterPlot({
        x: log('x'),
        y: linear('y'),
        points: [
          { letter: 'Z', x: 0, y: 1 },
          { letter: 'N', x: NaN, y: 1 },
          { letter: 'A', x: 5, y: 1 },
        ],
        width: 30,
        height: 3,
      }),
    );
    expect(rows.join('')).not.toMatch(/[ZN]/);
    expect(rows.join('')).toContain('A');
  });
});

describe('lettersFor', () => {
  it.each([
    [
      ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'],
      ['T', 'G', 'S', 'C', 'F'],
      'initials, the next word where the first is taken',
    ],
    [['alpha', 'apple', 'avocado'], ['A', 'P', 'V'], 'the next free letter of the name'],
    [['my-limiter.mjs', 'my-limiter.js'], ['M', 'L'], 'module file names'],
  ])('%j -> %j (%s)', (names, letters) => {
    expect(lettersFor(names)).toEqual(letters);
  });
});
