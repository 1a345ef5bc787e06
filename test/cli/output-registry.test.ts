// The output registry: the formats a command writes are declared once in the command table;
// their flags, the check of their targets before the run and the writing, all the files or
// none, come from src/cli/outputs.ts.
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/command-table.js';
import { run } from '../../src/cli/main.js';
import { OUTPUT_FORMATS, checkOutputs, outputHelp, writeFormats, type OutputTargets } from '../../src/cli/outputs.js';
import { bufferIO } from '../../src/report/io.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-registry-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the flags come from the formats a command declares', () => {
  it.each([
    // command, its formats, why
    ['compare', ['csv', 'json', 'html', 'prom'], 'rows, timelines, the report and the Prometheus counts'],
    ['attack', ['csv', 'json', 'html'], "compare's, with an attack section"],
    ['audit', ['json', 'html'], 'the audit (format 1) and its timelines'],
    ['distributed', ['csv', 'json', 'html'], 'one row per design'],
    ['fidelity', ['csv', 'json'], 'no HTML report'],
    ['playground', ['html'], 'the page itself'],
    ['bench', ['json', 'csv'], 'in the order its help always listed them'],
  ])('%s writes %j (%s), each as `--FORMAT [file]`', (name, formats) => {
    const flags = COMMANDS.find((spec) => spec.name === name)?.flags ?? [];
    const outputs = flags.filter((line) => OUTPUT_FORMATS.some((format) => line.flags === `--${format} [file]`));
    expect(outputs.map((line) => line.flags)).toEqual(formats.map((format) => `--${format} [file]`));
  });

  it('says what the file holds, and that no file means stdout', () => {
    expect(outputHelp('csv', 'one row per design')).toBe('write one row per design as CSV (- or no file: stdout)');
    expect(outputHelp('html', 'per-design lines')).toBe(
      'write a self-contained HTML report to open in a browser: per-design lines (- or no file: stdout)',
    );
  });

  it('a format flag without a file writes to stdout, as `-` does', async () => {
    const argv = ['compare', 'edge-attack', '--algorithms', 'fixed-window', '--no-measure', '--no-chart'];
    const bare = bufferIO();
    const dash = bufferIO();
    expect(await run([...argv, '--json'], bare)).toBe(0);
    expect(await run([...argv, '--json', '-'], dash)).toBe(0);
    expect(bare.out()).toBe(dash.out());
    expect(JSON.parse(bare.out())).toHaveProperty('rows');
  });
});

describe('checkOutputs checks every format of the registry', () => {
  it.each<[OutputTargets, RegExp, string]>([
    // targets, the error, why
    [{ csv: '-', html: true }, /^--csv: only one of --csv and --html can go to stdout/, 'true is stdout too'],
    [
      { json: 'same.out', html: './same.out' },
      /^--html: \.\/same\.out is the file --json writes too$/,
      'the same file twice',
    ],
    [
      { html: 'missing/report.html' },
      /^--html: missing\/report\.html: the folder .* does not exist$/,
      'each target tried before the run',
    ],
  ])('%j: refused (%s)', (targets, message) => {
    expect(() => checkOutputs(targets, scratch)).toThrow(message);
  });

  it('says whether a target is stdout', () => {
    expect(checkOutputs({ csv: join(scratch, 'a.csv') }, scratch)).toBe(false);
    expect(checkOutputs({ json: true }, scratch)).toBe(true);
  });
});

describe('writeFormats', () => {
  it('builds only the formats asked for, and writes them all', async () => {
    const dir = mkdtempSync(join(scratch, 'asked-'));
    const built: string[] = [];
    const content = (format: string) => () => {
      built.push(format);
      return `${format}\n`;
    };
    const io = bufferIO({ cwd: dir });
    await writeFormats(
      { csv: 'rows.csv', json: true, html: undefined },
      { csv: content('csv'), json: content('json'), html: content('html') },
      io,
    );
    expect(built).toEqual(['csv', 'json']);
    expect(readFileSync(join(dir, 'rows.csv'), 'utf8')).toBe('csv\n');
    expect(io.out()).toBe('json\n');
  });

  it('writes all the files or none: a failure on one leaves those already there as they were', async () => {
    const dir = mkdtempSync(join(scratch, 'none-'));
    writeFileSync(join(dir, 'ok.csv'), 'before\n');
    const io = bufferIO({ cwd: dir });
    const writing = writeFormats(
      { csv: 'ok.csv', json: 'missing/out.json' },
      { csv: () => 'after\n', json: () => '{}' },
      io,
    );
    await expect(writing).rejects.toThrow(/ENOENT/);
    expect(readFileSync(join(dir, 'ok.csv'), 'utf8')).toBe('before\n');
    expect(readdirSync(dir)).toEqual(['ok.csv']);
  });

  it('needs the content of every format the targets can name (a missing one does not compile)', async () => {
    const io = bufferIO({ cwd: scratch });
    // @ts-expect-error no html content for targets that can name html
    await expect(writeFormats({ csv: undefined, html: '-' }, { csv: () => '' }, io)).rejects.toThrow(/writes no html/);
  });
});
