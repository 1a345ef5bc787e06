import { rowLabel, rowOf, type WindowScale } from './window-scale.js';

/** Glyphs of a {@link glyphPanel}, explained in its legend. */
export const GLYPHS = { admitted: '#', exact: 'o', limit: '-' } as const;

/**
 * One series as a small bar chart readable without colour (asciichart cannot give each
 * series its own glyph): per column a bar of `#` up to the series' row, `o` on the
 * exact oracle's row where the bar stays below it, `-` along the limit row elsewhere.
 * Rows from `scale.rows` down to 0, each line `labelWidth + 1 + values.length` wide.
 */
export function glyphPanel(
  values: readonly number[],
  exact: readonly number[] | undefined,
  scale: WindowScale,
  labelWidth: number,
): string[] {
  const limitRow = rowOf(scale, 1);
  const lines: string[] = [];
  for (let row = scale.rows; row >= 1; row--) {
    const limitHere = Math.abs(row * scale.step - 1) < 1e-9 && row === limitRow;
    let line = `${rowLabel(scale, row, labelWidth)}┤`;
    for (const [i, value] of values.entries())
      line += cell(
        rowOf(scale, value) >= row,
        exact !== undefined && rowOf(scale, exact[i] as number) === row,
        limitHere,
      );
    lines.push(line.trimEnd());
  }
  lines.push(`${rowLabel(scale, 0, labelWidth)}└${'─'.repeat(values.length)}`);
  return lines;
}

function cell(bar: boolean, exact: boolean, limit: boolean): string {
  if (bar) return GLYPHS.admitted;
  if (exact) return GLYPHS.exact;
  return limit ? GLYPHS.limit : ' ';
}
