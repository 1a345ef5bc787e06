// The --sweep-limit page in a real browser (Debian's Chromium, as html-browser.test.ts):
// skipped with a notice without one, unless RATELAB_REQUIRE_CHROMIUM=1. Saves a screenshot
// under test-artifacts/ (git-ignored; RATELAB_TEST_ARTIFACTS moves it).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/core/policy.js';
import { slopeOf, type SweepRow } from '../../src/metrics/memory-sweep.js';
import { memorySweepHtml } from '../../src/report/html/sweep-html.js';
import { openPage, skipWithoutChromium, type Pixels } from '../support/browser-page.js';

const ROOT = join(import.meta.dirname, '../..');
const ARTIFACTS = process.env.RATELAB_TEST_ARTIFACTS ?? join(ROOT, 'test-artifacts');
const LIMITS = [10, 100, 1000, 10_000];

/** A sweep shaped like a real one (the log 8 B per unit over ~90 B, the others flat), with no probe to wait for. */
const ROWS: SweepRow[] = ALGORITHMS.flatMap((algorithm) =>
  LIMITS.map((limit) => ({
    algorithm,
    limit,
    windowMs: 60_000,
    keys: 4096,
    bytesPerKey: algorithm === 'sliding-log' ? 8 * limit + 100 : 90,
  })),
);

/** What the page's chart holds, read in the page. */
interface SweepState {
  series: string[];
  /** uPlot's distr of x and y: 3 is log. */
  distr: [number, number];
  /** Painted pixels of the chart's canvas. */
  painted: number;
  /** The legend's figures with the cursor on the last limit. */
  legend: string[];
}

function sweepState(page: Page): Promise<SweepState> {
  return page.evaluate(() => {
    // Runs in Chromium; tsconfig has no DOM library, so the browser's objects are typed here, as far as used.
    const page = globalThis as unknown as {
      ratelabTestPixels(canvas: unknown): Pixels;
      document: { querySelectorAll(selector: string): ArrayLike<{ textContent: string }> };
      ratelabSweepChart: {
        series: { label: string }[];
        scales: { x: { distr: number }; y: { distr: number } };
        ctx: { canvas: unknown };
        setCursor(opts: { left: number; top: number }): void;
        valToPos(value: number, scale: string): number;
      };
    };
    const u = page.ratelabSweepChart;
    const { painted } = page.ratelabTestPixels(u.ctx.canvas);
    u.setCursor({ left: u.valToPos(10_000, 'x'), top: 10 });
    const legend = Array.from(page.document.querySelectorAll('.u-legend .u-value'), (cell) => cell.textContent);
    return {
      series: u.series.map((s) => s.label),
      distr: [u.scales.x.distr, u.scales.y.distr],
      painted,
      legend,
    };
  });
}

const skip = skipWithoutChromium("the sweep page's browser test");

describe.skipIf(skip)('compare --sweep-limit --html in Chromium', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'ratelab-sweep-browser-'));
  let browser: Browser;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    const file = join(scratch, 'sweep.html');
    writeFileSync(file, memorySweepHtml({ rows: ROWS, slopes: ALGORITHMS.map((a) => slopeOf(a, ROWS)) }));
    ({ browser, page, problems } = await openPage({ width: 1280, height: 900 }));
    await page.goto(pathToFileURL(file).href);
    await page.waitForSelector('body[data-ready="true"]');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('paints a log-log line per algorithm, with the figures under the cursor', async () => {
    const state = await sweepState(page);
    expect(problems).toEqual([]);
    expect(state.series).toEqual(['limit', ...ALGORITHMS]);
    expect(state.distr).toEqual([3, 3]);
    expect(state.painted).toBeGreaterThan(5_000);
    expect(state.legend).toEqual([
      '10,000',
      '90 B (4,096 keys)',
      '90 B (4,096 keys)',
      '80 kB (4,096 keys)',
      '90 B (4,096 keys)',
      '90 B (4,096 keys)',
    ]);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'sweep-page.png'), fullPage: true });
  });

  it('tables every figure with each slope', async () => {
    const cells = await page.locator('table:not(.u-legend) tr').allInnerTexts();
    expect(cells[0]).toBe('algorithm\tslope\tmemory\tlimit 10\tlimit 100\tlimit 1,000\tlimit 10,000');
    expect(cells).toContain('sliding-log\t~8.0 B/unit\tO(limit)\t180\t900\t8100\t80100');
    expect(cells).toContain('gcra\t~0 B/unit\tO(1)\t90\t90\t90\t90');
  });
});
