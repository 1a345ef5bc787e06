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
