import { Chalk } from 'chalk';
import { describe, expect, it } from 'vitest';
import { EIGHTHS, FULL_BLOCK, barChart, barGlyphs, type BarChartSpec } from '../../src/report/text/bar-chart.js';
import stripAnsi from '../../src/report/text/strip-ansi.js';

const plain = new Chalk({ level: 0 });

function chart(spec: Partial<BarChartSpec> & Pick<BarChartSpec, 'groups'>): string[] {
  return barChart({ title: 'memory per key', format: (v) => `${v} B`, width: 40, paint: plain, ...spec });
}

/** The glyphs of a chart line's bar (what lies between the name and the figure). */
function barOf(line: string): string {
  return [...line].filter((ch) => ch === FULL_BLOCK || (EIGHTHS as readonly string[]).includes(ch)).join('');
}

describe('barGlyphs', () => {
  it.each([
    { share: 0, cells: 10, glyphs: '', why: 'nothing is drawn for 0: the bars start at 0' },
    { share: 1, cells: 10, glyphs: FULL_BLOCK.repeat(10), why: 'the largest value fills every cell' },
    { share: 0.5, cells: 10, glyphs: FULL_BLOCK.repeat(5), why: 'half the value, half the cells' },
    { share: 0.55, cells: 10, glyphs: `${FULL_BLOCK.repeat(5)}▌`, why: 'the half cell left over is a half block' },
    { share: 0.0125, cells: 10, glyphs: '▏', why: 'one eighth of a cell' },
    { share: 0.001, cells: 10, glyphs: '▏', why: 'a value above 0 shows at least an eighth' },
    { share: 1.5, cells: 4, glyphs: FULL_BLOCK.repeat(4), why: 'a share past 1 stays inside the bar area' },
  ])('$share of $cells cells is "$glyphs": $why', ({ share, cells, glyphs }) => {
    expect(barGlyphs(share, cells)).toBe(glyphs);
  });
});

describe('barChart', () => {
  it('draws every bar on one scale from 0, its figure after it, names left-aligned', () => {
    const lines = chart({
      groups: [
        {
          bars: [
            { label: 'sliding-log', value: 100 },
            { label: 'gcra', value: 50 },
          ],
        },
      ],
    });
    expect(lines[0]).toBe('memory per key');
    expect(lines[1]).toMatch(/^sliding-log █+ 100 B$/);
    expect(lines[2]).toMatch(/^gcra {8}█+ 50 B$/);
    const long = barOf(lines[1] as string).length;
    expect(barOf(lines[2] as string).length).toBe(long / 2); // 50 against 100: half the length
    expect(lines[1]?.length).toBe(40); // the largest bar spans the width
  });

  it('shares the scale across groups, each under its heading', () => {
    const lines = chart({
      groups: [
        { heading: '10 keys', bars: [{ label: 'a', value: 4 }] },
        { heading: '1000 keys', bars: [{ label: 'a', value: 2 }] },
      ],
    });
    expect(lines.slice(1).map((line) => line.replace(/[█-▏]+/, '#'))).toEqual([
      '10 keys',
      '  a # 4 B',
      '1000 keys',
      '  a # 2 B',
    ]);
    expect(barOf(lines[4] as string).length * 2).toBe(barOf(lines[2] as string).length);
  });

  it.each([
    { width: 30, why: 'the narrowest chart' },
    { width: 80, why: 'a terminal of 80 columns' },
  ])('fits $width columns, cutting a name too long to leave the bars room ($why)', ({ width }) => {
    const lines = chart({
      width,
      groups: [{ bars: [{ label: 'a-limiter-module-with-a-very-long-file-name.mjs', value: 3 }] }],
    });
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(width);
    expect(lines[1]).toContain('…');
    expect(lines[1]).toMatch(/3 B$/);
  });

  it('draws nothing for values that are all 0, and still prints each figure', () => {
    const lines = chart({ groups: [{ bars: [{ label: 'a', value: 0 }] }] });
    expect(lines[1]).toBe('a 0 B');
  });

  it('tints only the bars when the paint has colour, and reads the same without it', () => {
    const spec = { groups: [{ bars: [{ label: 'a', value: 1 }] }] };
    const coloured = chart({ ...spec, paint: new Chalk({ level: 1 }) });
    expect(coloured[1]).toContain('\u001b[36m');
    expect(coloured.map(stripAnsi)).toEqual(chart(spec));
  });
});
