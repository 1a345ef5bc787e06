import { describe, expect, it } from 'vitest';
import { terminalWidth } from '../../src/cli/terminal-width.js';

describe('terminalWidth', () => {
  it.each([
    { COLUMNS: '80', columns: 120, width: 80 },
    { COLUMNS: undefined, columns: 90, width: 90 },
    { COLUMNS: undefined, columns: undefined, width: 80 },
    { COLUMNS: 'wide', columns: 72, width: 72 },
    { COLUMNS: '200', columns: undefined, width: 100 },
    { COLUMNS: '10', columns: undefined, width: 40 },
  ])('COLUMNS=$COLUMNS on a terminal of $columns columns: $width', ({ COLUMNS, columns, width }) => {
    expect(terminalWidth({ env: { COLUMNS }, stdout: { write: () => true, columns } })).toBe(width);
  });
});
