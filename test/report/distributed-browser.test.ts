// `distributed --html` in a real browser (Debian's Chromium, as html-browser.test.ts
// finds it): the widest run (an outage, every design under every fail mode) reads in a
// 1280x800 window without scrolling sideways, its tables within the page's column.
// Skipped with a notice when there is no Chromium, unless RATELAB_REQUIRE_CHROMIUM=1.
// Saves a screenshot under test-artifacts/ (RATELAB_TEST_ARTIFACTS moves it).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedCommand } from '../../src/cli/commands/distributed.js';
import { bufferIO } from '../../src/report/io.js';
import { openPage, skipWithoutChromium, widthsOf } from '../support/browser-page.js';

const ROOT = join(import.meta.dirname, '../..');
const ARTIFACTS = process.env.RATELAB_TEST_ARTIFACTS ?? join(ROOT, 'test-artifacts');
const BROWSER_TIMEOUT_MS = 120_000;
const VIEWPORT = { width: 1280, height: 800 };

const skip = skipWithoutChromium("the distributed report's browser test");

describe.skipIf(skip)(
  'distributed --html in Chromium',
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ratelab-distributed-browser-'));
    let browser: Browser;
    let page: Page;
    let problems: string[];

    beforeAll(async () => {
      const io = bufferIO({ cwd: scratch });
      expect(await distributedCommand({ outage: '10s-20s', chart: false, html: 'd.html' }, io)).toBe(0);
      ({ browser, page, problems } = await openPage(VIEWPORT));
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
      // The charts' legends are tables too, but within their charts.
      const measured = await widthsOf(page, 'table:not(.u-legend)');
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
