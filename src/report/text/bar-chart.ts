import type { ChalkInstance } from 'chalk';
import { largest } from '../../metrics/largest.js';

/**
 * A horizontal bar chart for the terminal, readable without colour: one bar per item on one
 * scale shared by every bar of the chart, drawn from 0 in full blocks and an eighth-block
 * for the remainder, the figure printed after each bar, names left-aligned before them.
 * Colour (when the paint has any) only tints the bars.
 */

/** One bar: a name and a value (0 or more; the unit is the chart's). */
export interface Bar {
  label: string;
  value: number;
}

/** Bars drawn together under an optional heading (`10000 keys`), on the chart's one scale. */
export interface BarGroup {
  heading?: string;
  bars: readonly Bar[];
}

export interface BarChartSpec {
  /** The chart's first line: what the bars are, their unit and what they summarise. */
  title: string;
  groups: readonly BarGroup[];
  /** The figure printed after a bar (`84 B`, `0.89x`). */
  format(value: number): string;
  /** Columns of the whole chart (at least 30). */
  width: number;
  /** Tints the bars; a chalk without colour leaves them plain. */
  paint: ChalkInstance;
}

/** The glyphs of a bar's last cell by eighths filled, 1 to 8; a bar is whole {@link FULL_BLOCK}s and one of these. */
export const EIGHTHS = ['▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'] as const;
export const FULL_BLOCK = '█';

/** A name longer than this share of the width is cut (with `…`), so the bars keep room. */
const LABEL_SHARE = 0.4;

/**
 * The chart as lines of at most `spec.width` columns: the title, then per group its heading
 * and its bars (indented two columns under a heading). The largest value fills the bar area (the width left by
 * the names and figures); every other bar is its value's share of it, in eighths of a cell,
 * and any value above 0 shows at least one eighth. A chart with no bars is its title alone.
 */
export function barChart(spec: BarChartSpec): string[] {
  const width = Math.max(30, spec.width);
  const bars = spec.groups.flatMap((group) => group.bars);
  const figures = new Map(bars.map((bar) => [bar, spec.format(bar.value)]));
  const labelWidth = Math.min(
    largest(
      bars.map((bar) => bar.label.length),
      0,
    ),
    Math.floor(width * LABEL_SHARE),
  );
  const figureWidth = largest(
    [...figures.values()].map((figure) => figure.length),
    0,
  );
  const indent = spec.groups.some((group) => group.heading !== undefined) ? '  ' : '';
  const cells = Math.max(1, width - indent.length - labelWidth - figureWidth - 2);
  const top = largest(
    bars.map((bar) => bar.value),
    0,
  );
  const lines = [spec.title];
  for (const group of spec.groups) {
    if (group.heading !== undefined) lines.push(group.heading);
    for (const bar of group.bars) {
      const glyphs = barGlyphs(top === 0 ? 0 : bar.value / top, cells);
      const label = fitLabel(bar.label, labelWidth).padEnd(labelWidth);
      const drawn = glyphs === '' ? [] : [spec.paint.cyan(glyphs)];
      lines.push(`${indent}${[label, ...drawn, figures.get(bar)].join(' ')}`);
    }
  }
  return lines;
}

/**
 * A bar of `share` (0 to 1) of `cells` cells: whole blocks, then the eighth-block of the
 * remainder; at least one eighth for any share above 0, so a small value still shows.
 */
export function barGlyphs(share: number, cells: number): string {
  const clamped = Math.min(1, Math.max(0, share));
  const eighths = clamped === 0 ? 0 : Math.max(1, Math.round(clamped * cells * 8));
  const whole = Math.floor(eighths / 8);
  const rest = eighths % 8;
  return FULL_BLOCK.repeat(whole) + (rest === 0 ? '' : EIGHTHS[rest - 1]);
}

function fitLabel(label: string, width: number): string {
  return label.length <= width ? label : `${label.slice(0, Math.max(0, width - 1))}…`;
}

/** Chart lines as text to write: each ended by a newline. */
export function linesOf(lines: readonly string[]): string {
  return lines.map((line) => `${line}\n`).join('');
}
