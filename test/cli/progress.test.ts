import { describe, expect, it } from 'vitest';
import { bufferIO } from '../../src/report/io.js';
import { createProgress } from '../../src/cli/progress.js';

describe('progress on stderr', () => {
  it('stays silent for the first second, then redraws one line in place and clears it', () => {
    let now = 0;
    const io = bufferIO({ tty: true });
    const progress = createProgress(io, () => now);
    progress.update('a');
    now = 1500;
    progress.update('b');
    progress.done();
    expect(io.err()).toBe('\r\u001b[Kb\r\u001b[K');
    expect(io.out()).toBe('');
  });

  it('never writes when stderr is not a terminal', () => {
    let now = 0;
    const io = bufferIO({ tty: false });
    const progress = createProgress(io, () => now);
    now = 5000;
    progress.update('b');
    progress.done();
    expect(io.err()).toBe('');
  });
});

describe('progress on a narrow terminal', () => {
  it.each([
    { columns: 20, shown: 'ratelab compare 6/1' },
    { columns: 80, shown: 'ratelab compare 6/13: zipf-many-keys (sliding-log)' },
    { columns: undefined, shown: 'ratelab compare 6/13: zipf-many-keys (sliding-log)' },
  ])('cuts the line to $columns columns less one, so that it never wraps', ({ columns, shown }) => {
    let now = 0;
    const io = bufferIO({ tty: true });
    io.stderr.columns = columns;
    const progress = createProgress(io, () => now);
    now = 1500;
    progress.update('ratelab compare 6/13: zipf-many-keys (sliding-log)');
    expect(io.err()).toBe(`\r\u001b[K${shown}`);
  });
});
