// Regenerates docs/images/html-report.png, the README's picture of the HTML report: runs
// `ratelab compare edge-attack --html` into a temp folder, opens the page in headless
// Chromium (/usr/bin/chromium or RATELAB_CHROMIUM), zooms to the worst window and saves
// the page. Then docs/images/html-trade-off.png (docs/report.md): a measured
// `ratelab compare --html` of the default scenarios, its trade-off scatter with the cursor
// on fixed-window's median, and the first scenario's table and bars. Look at the pictures
// before committing them.
//
//   npm run screenshot
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser } from 'playwright-core';
import { compareCommand } from '../src/cli/commands/compare.js';
import { bufferIO } from '../src/report/io.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'docs/images/html-report.png');
const TRADE_OFF_OUT = join(ROOT, 'docs/images/html-trade-off.png');
const CHROMIUM = process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium';

const work = mkdtempSync(join(tmpdir(), 'ratelab-screenshot-'));
try {
  const io = bufferIO({ cwd: work });
  const code = await compareCommand(
    { scenarios: ['edge-attack'], measure: false, chart: false, html: 'report.html' },
    io,
  );
  if (code !== 0) throw new Error(`compare exited ${code}: ${io.err()}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  try {
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(join(work, 'report.html')).href);
    await page.waitForSelector('body[data-ready="true"]');
    // The whole page in one viewport (a full-page capture would resize it and lose the hover).
    const height = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollHeight: number } } }).document.documentElement
          .scrollHeight,
    );
    await page.setViewportSize({ width: 1100, height });
    // Around the window edge at 1 s, the cursor just after it so the legend shows the figures there.
    await page.evaluate(() => {
      type U = { setScale(key: string, range: { min: number; max: number }): void };
      const u = (globalThis as unknown as { ratelabCharts: { timeline: U }[] }).ratelabCharts[0]?.timeline;
      u?.setScale('x', { min: 0.5, max: 1.5 });
    });
    await page.evaluate(async () => {
      type U = { setCursor(at: { left: number; top: number }): void; valToPos(v: number, scale: string): number };
      const browser = globalThis as unknown as {
        requestAnimationFrame(callback: () => void): void;
        ratelabCharts: { timeline: U }[];
      };
      await new Promise<void>((resolve) => browser.requestAnimationFrame(resolve));
      const u = browser.ratelabCharts[0]?.timeline;
      u?.setCursor({ left: u.valToPos(1.005, 'x'), top: 40 });
    });
    if (errors.length > 0) throw new Error(`the page failed: ${errors.join('; ')}`);
    await page.screenshot({ path: OUT });
    process.stdout.write(`wrote ${OUT}\n`);
    await tradeOffShot(browser);
  } finally {
    await browser.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** The scatter (cursor on fixed-window's median, so its tip shows) and the first scenario's table and bars, stacked. */
async function tradeOffShot(browser: Browser): Promise<void> {
  const io = bufferIO({ cwd: work });
  const code = await compareCommand({ chart: false, html: 'measured.html' }, io);
  if (code !== 0) throw new Error(`compare exited ${code}: ${io.err()}`);
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 }, deviceScaleFactor: 1 });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(pathToFileURL(join(work, 'measured.html')).href);
  await page.waitForSelector('body[data-ready="true"]');
  // Only the scatter and the first scenario's figures: the rest of the page out of the picture.
  await page.addStyleTag({
    content:
      '#report > :not(#trade-off):not(#scenario-0) { display: none } #scenario-0 > :not(h2):not(.figures) { display: none }',
  });
  const over = page.locator('#trade-off .u-over');
  await over.scrollIntoViewIfNeeded();
  const box = await over.boundingBox();
  const at = await page.evaluate(() => {
    type U = { series: { label: string }[]; data: number[][][]; valToPos(v: number, scale: string): number };
    const u = (globalThis as unknown as { ratelabTradeOff: { chart: U } }).ratelabTradeOff.chart;
    const i = u.series.findIndex((s) => s.label === 'fixed-window');
    const [xs, ys] = u.data[i] as number[][];
    return { left: u.valToPos(xs?.at(-1) as number, 'x'), top: u.valToPos(ys?.at(-1) as number, 'y') };
  });
  if (box) await page.mouse.move(box.x + at.left + 1, box.y + at.top + 1);
  if (errors.length > 0) throw new Error(`the page failed: ${errors.join('; ')}`);
  await page.locator('#report').screenshot({ path: TRADE_OFF_OUT });
  process.stdout.write(`wrote ${TRADE_OFF_OUT}\n`);
}
