// The HTML report in a real browser: Debian's Chromium (/usr/bin/chromium, or
// RATELAB_CHROMIUM), driven by playwright-core. Skipped with a notice when there is no
// Chromium; RATELAB_REQUIRE_CHROMIUM=1 (set by .ci/run, which installs it) fails instead.
// Saves screenshots under test-artifacts/ (git-ignored; RATELAB_TEST_ARTIFACTS moves it).
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand } from '../../src/cli/commands/compare.js';
import { bufferIO } from '../../src/report/io.js';

const ROOT = join(import.meta.dirname, '../..');
const CHROMIUM = process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = process.env.RATELAB_TEST_ARTIFACTS ?? join(ROOT, 'test-artifacts');
const BROWSER_TIMEOUT_MS = 120_000;

/** Two keys over the limit at different times, so the report offers a choice of worst keys. */
const TWO_KEYS = `name: two-keys
description: alice hits a window edge; the bob keys stream at 1.7x their limit
policy: { limit: 10, window: 1s }
duration: 4s
seed: 1
bucket: 100ms
sources:
  - { kind: burst, keys: alice, at: 999ms, count: 10 }
  - { kind: burst, keys: alice, at: 1000ms, count: 10 }
  - { kind: poisson, keys: { count: 3, prefix: "bob-", pick: round-robin }, rate: 50/s }
`;

/** What the page's charts hold (window.ratelabCharts), read in the page. */
interface ChartState {
  scenario: string;
  view: string | null;
  series: string[];
  /** Per series of the timeline, its largest value. */
  peaks: number[];
  /** The x (s) of the first point where fixed-window is at its peak. */
  fixedPeakAt: number | null;
  x: { min: number; max: number };
  /** Painted pixels of the timeline's canvas and of each strip's. */
  painted: number;
  stripPainted: number[];
  stripX: { min: number; max: number }[];
}

async function chartStates(page: Page): Promise<ChartState[]> {
  return page.evaluate(() => {
    // Runs in Chromium; tsconfig has no DOM library, so the browser's objects are typed here, as far as used.
    interface Canvas {
      width: number;
      height: number;
      getContext(kind: '2d', options: { willReadFrequently: boolean }): Context;
    }
    interface Context {
      canvas: Canvas;
      drawImage(image: Canvas, x: number, y: number): void;
      getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
    }
    type U = {
      series: { label: string }[];
      data: number[][];
      scales: { x: { min: number; max: number } };
      ctx: Context;
    };
    const page = globalThis as unknown as {
      document: { createElement(tag: 'canvas'): Canvas };
      ratelabCharts: { scenario: string; view: string | null; timeline: U | null; strips: U[] }[];
    };
    // Read through a copy made for reading, so the page's own canvases never warn about readbacks.
    const painted = (u: U) => {
      const { width, height } = u.ctx.canvas;
      const copy = page.document.createElement('canvas');
      copy.width = width;
      copy.height = height;
      const context = copy.getContext('2d', { willReadFrequently: true });
      context.drawImage(u.ctx.canvas, 0, 0);
      const pixels = context.getImageData(0, 0, width, height).data;
      let count = 0;
      for (let i = 3; i < pixels.length; i += 4) if ((pixels[i] as number) > 0) count++;
      return count;
    };
    const records = page.ratelabCharts;
    return records.map((r) => {
      const u = r.timeline as U;
      const labels = u.series.map((s) => s.label);
      const fixed = labels.indexOf('fixed-window');
      const peaks = u.data.map((values) => Math.max(...values.filter((v) => v !== null)));
      const fixedValues = fixed < 0 ? [] : (u.data[fixed] as number[]);
      const at = fixedValues.indexOf(peaks[fixed] as number);
      return {
        scenario: r.scenario,
        view: r.view,
        series: labels,
        peaks,
        fixedPeakAt: at < 0 ? null : ((u.data[0] as number[])[at] as number),
        x: { min: u.scales.x.min, max: u.scales.x.max },
        painted: painted(u),
        stripPainted: r.strips.map(painted),
        stripX: r.strips.map((s) => ({ min: s.scales.x.min, max: s.scales.x.max })),
      };
    });
  });
}

const available = existsSync(CHROMIUM);
if (!available && process.env.RATELAB_REQUIRE_CHROMIUM !== '1') {
  process.stderr.write(
    `\n[ratelab] SKIPPED the HTML report's browser test: no Chromium at ${CHROMIUM} (apt-get install chromium, set RATELAB_CHROMIUM, or RATELAB_REQUIRE_CHROMIUM=1 to fail instead)\n`,
  );
}

describe.skipIf(!available && process.env.RATELAB_REQUIRE_CHROMIUM !== '1')(
  'compare --html in Chromium',
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ratelab-html-browser-'));
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      if (!available) throw new Error(`no Chromium at ${CHROMIUM}, and RATELAB_REQUIRE_CHROMIUM=1 forbids skipping`);
      writeFileSync(join(scratch, 'two-keys.yaml'), TWO_KEYS);
      const io = bufferIO({ cwd: scratch });
      expect(
        await compareCommand(
          { scenarios: ['edge-attack', 'two-keys.yaml'], measure: false, chart: false, html: 'r.html' },
          io,
        ),
      ).toBe(0);
      browser = await chromium.launch({ executablePath: CHROMIUM });
      page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          problems.push(`console ${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('request', (request) => {
        if (!request.url().startsWith('file:')) problems.push(`request: ${request.url()}`);
      });
      await page.goto(pathToFileURL(join(scratch, 'r.html')).href);
      await page.waitForSelector('body[data-ready="true"]');
    }, BROWSER_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('opens with no console error, no page error and no request', () => {
      expect(problems).toEqual([]);
    });

    it('draws the matrix, and a timeline of all five algorithms, the exact oracle and the limit, with a strip each', async () => {
      expect(await page.locator('table.matrix tr').count()).toBe(3);
      const [edge] = await chartStates(page);
      expect(edge?.scenario).toBe('edge-attack');
      expect(edge?.series).toEqual([
        'time',
        'limit',
        'exact',
        'token-bucket',
        'gcra',
        'sliding-log',
        'sliding-counter',
        'fixed-window',
      ]);
      for (const name of ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window']) {
        await expect(
          page.locator('#scenario-0 .timeline .u-legend').getByText(name, { exact: true }).count(),
        ).resolves.toBe(1);
      }
      expect(edge?.painted).toBeGreaterThan(5_000);
      expect(edge?.stripPainted).toHaveLength(6);
      for (const pixels of edge?.stripPainted ?? []) expect(pixels).toBeGreaterThan(0);
    });

    it("shows the fixed window's 2x right at the window edge (1 s), and nothing else above 1.0", async () => {
      const [edge] = await chartStates(page);
      const peak = (name: string) => edge?.peaks[edge.series.indexOf(name)];
      expect(peak('fixed-window')).toBeCloseTo(2, 6);
      expect(edge?.fixedPeakAt).toBe(1);
      for (const name of ['exact', 'token-bucket', 'gcra', 'sliding-log', 'sliding-counter'])
        expect(peak(name)).toBeLessThanOrEqual(1);
    });

    it('zooms on a drag across the chart, strips following, then pans and resets with the buttons', async () => {
      const before = (await chartStates(page))[0] as ChartState;
      const over = page.locator('#scenario-0 .timeline .u-over');
      const box = await over.boundingBox();
      if (!box) throw new Error('no plot area');
      await page.mouse.move(box.x + box.width * 0.05, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.2, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      const zoomed = (await chartStates(page))[0] as ChartState;
      expect(zoomed.x.max - zoomed.x.min).toBeLessThan((before.x.max - before.x.min) / 4);
      expect(zoomed.x.min).toBeGreaterThan(before.x.min);
      for (const strip of zoomed.stripX) expect(strip).toEqual(zoomed.x);
      // Hovering shows the exact figures in the legend.
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2);
      await expect(page.locator('#scenario-0 .timeline .u-legend .u-value').first().textContent()).resolves.toMatch(
        /\d s$/,
      );
      await page.locator('#scenario-0 button', { hasText: 'pan →' }).click();
      const panned = (await chartStates(page))[0] as ChartState;
      expect(panned.x.min).toBeCloseTo(zoomed.x.min + (zoomed.x.max - zoomed.x.min) / 2, 6);
      await page.locator('#scenario-0 button', { hasText: 'worst window' }).click();
      const worst = (await chartStates(page))[0] as ChartState;
      expect([worst.x.min, worst.x.max]).toEqual([0, 2]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.locator('#scenario-0').screenshot({ path: join(ARTIFACTS, 'html-report-edge-attack.png') });
      await page.locator('#scenario-0 button', { hasText: 'whole run' }).click();
      expect(((await chartStates(page))[0] as ChartState).x).toEqual(before.x);
    });

    it('offers the worst keys of a multi-key scenario in a list, and redraws for the one picked', async () => {
      const select = page.locator('#scenario-1 select');
      const options = await select.locator('option').allTextContents();
      expect(options.length).toBeGreaterThanOrEqual(2);
      expect(options).toContain('worst key alice');
      const other = options.find((label) => label !== options[0]) as string;
      await select.selectOption({ label: other });
      const state = (await chartStates(page))[1] as ChartState;
      expect(state.view).toBe(other);
      expect(state.painted).toBeGreaterThan(1_000);
      expect(problems).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'html-report.png'), fullPage: true });
    });
  },
  BROWSER_TIMEOUT_MS,
);
