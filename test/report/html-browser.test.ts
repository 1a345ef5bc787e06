// The HTML report in a real browser: Debian's Chromium (/usr/bin/chromium, or
// RATELAB_CHROMIUM), driven by playwright-core. Skipped with a notice when there is no
// Chromium; RATELAB_REQUIRE_CHROMIUM=1 (set by .ci/run, which installs it) fails instead.
// Saves screenshots under test-artifacts/ (git-ignored; RATELAB_TEST_ARTIFACTS moves it).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { attackCommand } from '../../src/cli/commands/attack.js';
import { compareCommand } from '../../src/cli/commands/compare.js';
import { auditHtml } from '../../src/report/html/audit-html.js';
import type { HtmlReport } from '../../src/report/html/html-document.js';
import { bufferIO } from '../../src/report/io.js';
import { SAMPLE_REPORT } from '../audit/sample-report.js';
import { startServe } from '../cli/run-serve.js';
import { openPage, skipWithoutChromium, overflowing, widthsOf, type Pixels } from '../support/browser-page.js';

const ROOT = join(import.meta.dirname, '../..');
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
    type U = {
      series: { label: string }[];
      data: number[][];
      scales: { x: { min: number; max: number } };
      ctx: { canvas: unknown };
    };
    const page = globalThis as unknown as {
      ratelabTestPixels(canvas: unknown): Pixels;
      ratelabCharts: { scenario: string; view: string | null; timeline: U | null; strips: U[] }[];
    };
    const painted = (u: U) => page.ratelabTestPixels(u.ctx.canvas).painted;
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

/** The trade-off scatter's state (window.ratelabTradeOff), read in the page. */
interface ScatterState {
  cost: number;
  labels: { contender: string; text: string; x: number; y: number }[];
  hovered: string | null;
  painted: number;
  /** A digest of the canvas's pixels, to tell one drawing from another. */
  digest: number;
  canvas: { width: number; height: number };
  /** The y axis's title. */
  yLabel: string;
  /** Each contender's median in CSS px of the plot area, as drawn. */
  medians: { contender: string; left: number; top: number }[];
}

async function scatterState(page: Page): Promise<ScatterState> {
  return page.evaluate(() => {
    type U = {
      series: { label: string }[];
      data: [null, ...number[][][]];
      ctx: { canvas: { width: number; height: number } };
      axes: { label: string }[];
      valToPos(v: number, scale: string): number;
    };
    const browser = globalThis as unknown as {
      ratelabTestPixels(canvas: unknown): Pixels;
      ratelabTradeOff: {
        chart: U;
        cost: number;
        labels: { contender: string; text: string; x: number; y: number }[];
        hovered: string | null;
      };
    };
    const record = browser.ratelabTradeOff;
    const u = record.chart;
    const { width, height } = u.ctx.canvas;
    const { painted, digest } = browser.ratelabTestPixels(u.ctx.canvas);
    // Each series' last point is its median (the page draws it ringed and named).
    const medians = u.series.slice(1).map((s, i) => {
      const [xs, ys] = u.data[i + 1] as number[][];
      return {
        contender: s.label,
        left: u.valToPos(xs?.at(-1) as number, 'x'),
        top: u.valToPos(ys?.at(-1) as number, 'y'),
      };
    });
    return {
      cost: record.cost,
      labels: record.labels,
      hovered: record.hovered,
      painted,
      digest,
      canvas: { width, height },
      yLabel: u.axes[1]?.label ?? '',
      medians,
    };
  });
}

const ALGORITHMS = ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'];

const skip = skipWithoutChromium("the HTML report's browser test");

describe.skipIf(skip)(
  'compare --html in Chromium',
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ratelab-html-browser-'));
    let browser: Browser;
    let page: Page;
    let problems: string[];

    beforeAll(async () => {
      writeFileSync(join(scratch, 'two-keys.yaml'), TWO_KEYS);
      const io = bufferIO({ cwd: scratch });
      expect(
        await compareCommand(
          { scenarios: ['edge-attack', 'two-keys.yaml'], measure: false, chart: false, html: 'r.html' },
          io,
        ),
      ).toBe(0);
      ({ browser, page, problems } = await openPage({ width: 1280, height: 900 }));
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

    it('opens each view on its worst window with one window either side, strips too, so their cells can be read', async () => {
      const [edge, twoKeys] = await chartStates(page);
      // edge-attack: the worst window is 0-1 s (fixed-window's 2x), so 0-2 s (no time before 0) of a 12 s run.
      expect(edge?.x).toEqual({ min: 0, max: 2 });
      for (const strip of edge?.stripX ?? []) expect(strip).toEqual(edge?.x);
      // two-keys: alice's window edge at 1 s; 4 s run.
      expect(twoKeys?.x.max).toBeLessThan(4);
      for (const strip of twoKeys?.stripX ?? []) expect(strip).toEqual(twoKeys?.x);
    });

    it('without measured costs, weighs error against the worst window; medians on one spot share one label', async () => {
      await expect(page.locator('#trade-off select option').allTextContents()).resolves.toEqual([
        'worst window / limit',
      ]);
      const state = await scatterState(page);
      expect(state.painted).toBeGreaterThan(5_000);
      // gcra makes token-bucket's decisions, so their medians coincide; fixed-window's is alone at 2x.
      const texts = [...new Set(state.labels.map((l) => l.text))];
      expect(texts).toContain('token-bucket = gcra');
      expect(texts).toContain('fixed-window');
      expect(state.labels.map((l) => l.contender).sort()).toEqual([...ALGORITHMS].sort());
    });

    it('fits a 1280-px window: no table past its edge, no horizontal scrollbar', async () => {
      const fit = await widthsOf(page, 'table');
      expect(overflowing(fit)).toEqual([]);
      expect(fit.document).toBeLessThanOrEqual(fit.window);
    });

    it('zooms on a drag across the chart, strips following, then pans and resets with the buttons', async () => {
      const before = (await chartStates(page))[0] as ChartState;
      const over = page.locator('#scenario-0 .timeline .u-over');
      await over.scrollIntoViewIfNeeded();
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
      const whole = (await chartStates(page))[0] as ChartState;
      expect(whole.x.min).toBe(0);
      expect(whole.x.max).toBeGreaterThan(11);
      for (const strip of whole.stripX) expect(strip).toEqual(whole.x);
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

describe.skipIf(skip)(
  'the trade-off scatter and the bars of a measured compare --html, and every page at 1280 px',
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ratelab-html-trade-off-'));
    let browser: Browser;
    let page: Page;
    let data: HtmlReport;
    let problems: string[];

    beforeAll(async () => {
      const io = bufferIO({ cwd: scratch });
      expect(
        await compareCommand({ scenarios: ['edge-attack', 'steady-over'], chart: false, html: 'measured.html' }, io),
      ).toBe(0);
      const text = readFileSync(join(scratch, 'measured.html'), 'utf8');
      const json = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(text)?.[1] ?? '';
      data = JSON.parse(json) as HtmlReport;
      ({ browser, page, problems } = await openPage({ width: 1280, height: 800 }));
      await page.goto(pathToFileURL(join(scratch, 'measured.html')).href);
      await page.waitForSelector('body[data-ready="true"]');
      await page.locator('#trade-off .u-over').scrollIntoViewIfNeeded();
    }, BROWSER_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('draws the scatter above the scenarios: painted, a series per algorithm, each median named on the canvas', async () => {
      const order = await page.evaluate(() =>
        [
          ...(
            globalThis as unknown as { document: { querySelectorAll(s: string): { id: string }[] } }
          ).document.querySelectorAll('main > section[id]'),
        ].map((s) => s.id),
      );
      expect(order).toEqual(['trade-off', 'scenario-0', 'scenario-1']);
      const state = await scatterState(page);
      expect(state.painted).toBeGreaterThan(10_000);
      // A label each; medians on the same spot share one (`token-bucket = gcra`), naming all of them.
      expect(state.labels.map((l) => l.contender).sort()).toEqual([...ALGORITHMS].sort());
      for (const label of state.labels) {
        expect(label.text.split(' = ')).toContain(label.contender);
        expect(label.x).toBeGreaterThanOrEqual(0);
        expect(label.x).toBeLessThan(state.canvas.width);
        expect(label.y).toBeGreaterThan(0);
        expect(label.y).toBeLessThan(state.canvas.height);
      }
      // Every (algorithm, scenario) point and a median each, in the data the page draws.
      expect(data.tradeOff?.points).toHaveLength(ALGORITHMS.length * 2);
      expect(data.tradeOff?.medians.map((m) => m.contender)).toEqual(ALGORITHMS);
      expect(problems).toEqual([]);
    });

    it('offers memory, speed and the worst window as the cost axis, and redraws for the one picked', async () => {
      const select = page.locator('#trade-off select');
      expect(await select.locator('option').allTextContents()).toEqual([
        'memory per key (B)',
        'speed (x ref)',
        'worst window / limit',
      ]);
      const memory = await scatterState(page);
      await select.selectOption({ label: 'speed (x ref)' });
      const speed = await scatterState(page);
      expect(speed.cost).toBe(1);
      expect(speed.digest).not.toBe(memory.digest);
      expect(speed.painted).toBeGreaterThan(10_000);
      expect(speed.labels.map((l) => l.contender).sort()).toEqual([...ALGORITHMS].sort());
      expect(speed.yLabel).toBe('speed (x ref)');
      expect(memory.yLabel).toMatch(/^memory per key \(B\)/);
      await select.selectOption({ label: 'memory per key (B)' });
      expect((await scatterState(page)).digest).toBe(memory.digest);
    });

    it.each(ALGORITHMS)('hovering the median of %s shows its name and figures', async (name) => {
      await page.locator('#trade-off select').selectOption({ label: 'memory per key (B)' });
      const state = await scatterState(page);
      const median = state.medians.find((m) => m.contender === name);
      const figures = data.tradeOff?.medians.find((m) => m.contender === name);
      if (!median || !figures) throw new Error(`no median of ${name}`);
      const over = await page.locator('#trade-off .u-over').boundingBox();
      if (!over) throw new Error('no plot area');
      await page.mouse.move(over.x + median.left + 1, over.y + median.top + 1);
      const hovered = (await scatterState(page)).hovered ?? '';
      // Medians can coincide (gcra = token-bucket on the bytes they keep): the tip names the nearest.
      expect(hovered).toMatch(/^[a-z-]+, median over the scenarios: error [\d.]+ %, memory per key [\d.]+ B$/);
      if (hovered.startsWith(`${name},`)) {
        expect(hovered).toContain(`error ${+figures.x.toPrecision(3)} %`);
        const bytes = figures.costs[0] as number;
        expect(hovered).toContain(`memory per key ${bytes >= 100 ? Math.round(bytes) : +bytes.toPrecision(3)} B`);
      }
      await expect(page.locator('#trade-off .tip').isVisible()).resolves.toBe(true);
      await expect(page.locator('#trade-off .tip').textContent()).resolves.toBe(hovered);
    });

    it('draws memory and speed bars beside each per-algorithm table, on one scale from 0, the figure printed', async () => {
      for (const [index, scenario] of data.scenarios.entries()) {
        const charts = page.locator(`#scenario-${index} .bar-chart`);
        await expect(charts.count()).resolves.toBe(2);
        expect(scenario.bars?.map((b) => b.unit)).toEqual(['B', 'x ref']);
        for (const [c, chart] of (scenario.bars ?? []).entries()) {
          const rows = charts.nth(c).locator('.bar-row');
          await expect(rows.locator('.bar-name').allTextContents()).resolves.toEqual(ALGORITHMS);
          const values = await rows.locator('.bar-value').allTextContents();
          expect(values).toEqual(
            chart.bars.map(
              (bar) => `${bar.value >= 100 ? Math.round(bar.value) : +bar.value.toPrecision(3)} ${chart.unit}`,
            ),
          );
          const widths = await rows
            .locator('.bar')
            .evaluateAll((bars) => bars.map((bar) => (bar as unknown as { style: { width: string } }).style.width));
          const max = Math.max(...chart.bars.map((bar) => bar.value));
          expect(widths.map(parseFloat)).toEqual(chart.bars.map((bar) => +((100 * bar.value) / max).toFixed(2)));
        }
      }
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.locator('#trade-off').screenshot({ path: join(ARTIFACTS, 'html-trade-off.png') });
      await page.locator('#scenario-0 .figures').screenshot({ path: join(ARTIFACTS, 'html-bars.png') });
    });

    it('fits a 1280-px window: the measured compare page', async () => {
      const fit = await widthsOf(page, 'table');
      expect(overflowing(fit)).toEqual([]);
      expect(fit.document).toBeLessThanOrEqual(fit.window);
    });

    it('fits a 1280-px window: the attack and audit pages', async () => {
      const serve = await startServe({ quiet: true, algorithm: 'fixed-window', limit: 5, window: '1s' });
      try {
        const edge = fileURLToPath(new URL('../fixtures/http-edge.yaml', import.meta.url));
        expect(
          await attackCommand(
            { url: serve.url, scenario: edge, speed: 10, align: '1s', chart: false, html: 'attack.html' },
            bufferIO({ cwd: scratch }),
          ),
        ).toBe(0);
      } finally {
        await serve.stop();
      }
      writeFileSync(join(scratch, 'audit.html'), auditHtml(SAMPLE_REPORT));
      for (const file of ['attack.html', 'audit.html']) {
        await page.goto(pathToFileURL(join(scratch, file)).href);
        await page.waitForSelector('body[data-ready="true"]');
        const fit = await widthsOf(page, 'table');
        expect({ file, overflowing: overflowing(fit) }).toEqual({ file, overflowing: [] });
        expect(fit.document).toBeLessThanOrEqual(fit.window);
      }
      expect(problems).toEqual([]);
    });
  },
  BROWSER_TIMEOUT_MS,
);
