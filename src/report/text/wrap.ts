/**
 * Greedy word wrap of plain text (no ANSI codes) to lines of at most `width` columns,
 * continuation lines starting with `indent`. A word longer than a line is left whole
 * rather than broken (a key or a file name must stay copyable).
 */
export function wrapWords(text: string, width: number, indent = ''): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    const prefix = line === '' ? (lines.length === 0 ? '' : indent) : `${line} `;
    if (line !== '' && prefix.length + word.length > width) {
      lines.push(line);
      line = indent + word;
    } else {
      line = prefix + word;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}

/**
 * Indexes of `names` grouped into lines of at most `width` columns after a margin of
 * `indent`, names two spaces apart (a chart's legend): a name never splits.
 */
export function wrapIndexes(names: readonly string[], width: number, indent: number): number[][] {
  const lines: number[][] = [[]];
  let used = indent;
  names.forEach((name, i) => {
    const line = lines[lines.length - 1] as number[];
    if (line.length > 0 && used + 2 + name.length > width) {
      lines.push([i]);
      used = indent + name.length;
    } else {
      used += (line.length > 0 ? 2 : 0) + name.length;
      line.push(i);
    }
  });
  return lines;
}
