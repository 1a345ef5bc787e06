// Times a report shows are times since the run's start (a scenario's 0, a trace's first
// arrival), never raw timestamps: a trace recorded in epoch ms (test/fixtures/traces/epoch-ms.csv,
// from 2025-12-01T00:00:00.900Z) reads "up to 140ms", not "up to 29409120.015m".
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compareCommand } from '../../src/cli/commands/compare.js';
import { parseDuration } from '../../src/core/duration.js';
import { bufferIO } from '../../src/report/io.js';
import type { HtmlReport } from '../../src/report/html/html-document.js';

const TRACES = join(import.meta.dirname, '../fixtures/traces');
const scratch = mkdtempSync(join(tmpdir(), 'ratelab-run-time-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The trace's run: its first arrival at epoch 1764547200900 ms, then two 1 s buckets. */
const RUN_MS = 2000;
const EPOCH_TRACE = {
  trace: join(TRACES, 'epoch-ms.csv'),
  limit: '5',
  window: '1s',
  measure: false,
  color: false,
} as const;

/** The time labels of the chart axis (under the last panel's `└`) and of the strip (under its title), when shown. */
function axisLabels(out: string): string[][] {
  const lines = out.split('\n');
  const chart = lines.map((line) => /└─/.test(line)).lastIndexOf(true);
  const strip = lines.findIndex((line) => /: requests of /.test(line));
  return [chart, strip].filter((i) => i >= 0).map((i) => (lines[i + 1] as string).trim().split(/\s+/));
}

async function compare(flags: Record<string, unknown>): Promise<string> {
  const io = bufferIO({ cwd: scratch });
  expect(await compareCommand({ ...EPOCH_TRACE, ...flags }, io)).toBe(0);
  return io.out();
}

describe('times in a report of a trace with epoch timestamps', () => {
  it('the sentence places the worst window from the first arrival', async () => {
    const out = (await compare({ chart: false })).replace(/\n {2}/g, ' ');
    expect(out).toContain('(10 against 5, key "attacker", up to 140ms)');
  });

  it('chart axes and strips label times from 0 to the run’s end', async () => {
    const axes = axisLabels(await compare({ strip: true }));
    expect(axes).toHaveLength(2);
    for (const labels of axes) {
      expect(labels[0]).toBe('0ms');
      for (const label of labels.slice(1)) expect(parseDuration(label, 'label')).toBeLessThanOrEqual(RUN_MS);
    }
  });

  it('a run starting inside the strip’s first cell (cells align to the epoch) labels it 0ms, never a time before the run', async () => {
    const [, strip] = axisLabels(await compare({ trace: join(TRACES, 'epoch-ms-unaligned.csv'), strip: true }));
    expect(strip?.[0]).toBe('0ms');
    // The fixed window's edge at epoch 1764547201000 ms: 877 ms after the first arrival at ...200123.
    expect(strip).toContain('877ms');
  });

  it('--from and --to are times since the first arrival too, and so is the message refusing them', async () => {
    const [axis] = axisLabels(await compare({ from: '100ms', to: '1s' }));
    expect(axis?.[0]).toBe('100ms');
    expect(axis?.at(-1)).toBe('1s');
    await expect(compare({ from: '5s' })).rejects.toThrow(
      '--from: 5s is outside the run (epoch-ms.csv runs from 0ms to 2s)',
    );
  });

  it('the HTML report’s x axis and worst window are times since the first arrival', async () => {
    await compare({ html: 'r.html' });
    const page = readFileSync(join(scratch, 'r.html'), 'utf8');
    const match = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(page);
    const data = JSON.parse(match?.[1] as string) as HtmlReport;
    const view = data.scenarios[0]?.views[0];
    expect(view?.x[0]).toBe(0);
    expect(Math.max(...(view?.x ?? []))).toBeLessThan(RUN_MS);
    expect(view?.worst?.toMs).toBe(140);
  });
});
