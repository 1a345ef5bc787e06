// `distributed --html` in a real browser (Debian's Chromium, as html-browser.test.ts
// finds it): the widest run (an outage, every design under every fail mode) reads in a
// 1280x800 window without scrolling sideways, its tables within the page's column.
// Skipped with a notice when there is no Chromium, unless RATELAB_REQUIRE_CHROMIUM=1.
// Saves a screenshot under test-artifacts/ (RATELAB_TEST_ARTIFACTS moves it).
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedCommand } from '../../src/cli/commands/distributed.js';
import { bufferIO } from '../../src/report/io.js';

const ROOT = join(import.meta.dirname, '../..');
const CHROMIUM = process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium';
const ARTIFACTS = process.env.RATELAB_TEST_ARTIFACTS ?? join(ROOT, 'test-artifacts');
const BROWSER_TIMEOUT_MS = 120_000;
const VIEWPORT = { width: 1280, height: 800 };

/** Where the page's content and its tables end, px from the left of the window. */
interface Widths {
  window: number;
  /** The document's full width: above `window` when the page scrolls sideways. */
  document: number;
  /** The right edge of the report's content box (inside its padding). */
  content: number;
  /** Every table but the charts' legends, by the heading above it. */
  tables: { title: string; right: number }[];
}

async function widths(page: Page): Promise<Widths> {
  return page.evaluate(() => {
    // Runs in Chromium; tsconfig has no DOM library, so the browser's objects are typed here, as far as used.
    interface Box {
      right: number;
    }
    interface Element {
      getBoundingClientRect(): Box;
      previousElementSibling: Element | null;
      textContent: string | null;
    }
    const page = globalThis as unknown as {
      innerWidth: number;
      document: {
        documentElement: { scrollWidth: number };
        querySelector(selector: string): Element;
        querySelectorAll(selector: string): Element[];
      };
      getComputedStyle(element: Element): { paddingRight: string };
    };
    const main = page.document.querySelector('#report');
    const content = main.getBoundingClientRect().right - parseFloat(page.getComputedStyle(main).paddingRight);
    return {
      window: page.innerWidth,
      document: page.document.documentElement.scrollWidth,
      content,
      tables: [...page.document.querySelectorAll('table:not(.u-legend)')].map((table) => ({
        title: table.previousElementSibling?.textContent ?? '',
        right: table.getBoundingClientRect().right,
      })),
    };
  });
}

const available = existsSync(CHROMIUM);
if (!available && process.env.RATELAB_REQUIRE_CHROMIUM !== '1') {
  process.stderr.write(
    `\n[ratelab] SKIPPED the distributed report's browser test: no Chromium at ${CHROMIUM} (apt-get install chromium, set RATELAB_CHROMIUM, or RATELAB_REQUIRE_CHROMIUM=1 to fail instead)\n`,
  );
}

describe.skipIf(!available && process.env.RATELAB_REQUIRE_CHROMIUM !== '1')(
  'distributed --html in Chromium',
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ratelab-distributed-browser-'));
    let browser: Browser;
    let page: Page;
    const problems: string[] = [];

    beforeAll(async () => {
      if (!available) throw new Error(`no Chromium at ${CHROMIUM}, and RATELAB_REQUIRE_CHROMIUM=1 forbids skipping`);
      const io = bufferIO({ cwd: scratch });
      expect(await distributedCommand({ outage: '10s-20s', chart: false, html: 'd.html' }, io)).toBe(0);
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
      page = await browser.newPage({ viewport: VIEWPORT });
      page.on('console', (message) => {
        if (message.type() === 'error' || message.type() === 'warning')
          problems.push(`console ${message.type()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      await page.goto(pathToFileURL(join(scratch, 'd.html')).href);
      await page.waitForSelector('body[data-ready="true"]');
    }, BROWSER_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('opens with no console error and no page error', () => {
      expect(problems).toEqual([]);
    });

    it('has no horizontal overflow at 1280x800: the page is no wider than the window, every table within the content', async () => {
      const measured = await widths(page);
      expect(measured.document).toBeLessThanOrEqual(measured.window);
      expect(measured.tables.map((table) => table.title)).toEqual([
        'Summary',
        'per design: accuracy against the global limit',
        'per design: what it costs',
      ]);
      expect(measured.tables.filter((table) => table.right > measured.content)).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: join(ARTIFACTS, 'distributed-report.png'), fullPage: true });
    });
  },
  BROWSER_TIMEOUT_MS,
);
