// What the browser tests share: a Chromium page that collects every complaint, a pixel
// reader installed in that page, and the page's widths. Functions given to playwright run in
// Chromium; tsconfig has no DOM library, so the browser's objects are typed here, as far as used.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/** Debian's Chromium, or RATELAB_CHROMIUM. */
export const CHROMIUM = process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);

/**
 * Whether to skip `what` (e.g. "the sweep page's browser test"): there is no Chromium and
 * RATELAB_REQUIRE_CHROMIUM=1 (set by .ci/run, which installs it) does not forbid skipping.
 * Says so on stderr when skipping; with the variable set, openPage fails instead.
 */
export function skipWithoutChromium(what: string): boolean {
  const skip = !available && process.env.RATELAB_REQUIRE_CHROMIUM !== '1';
  if (skip)
    process.stderr.write(
      `\n[ratelab] SKIPPED ${what}: no Chromium at ${CHROMIUM} (apt-get install chromium, set RATELAB_CHROMIUM, or RATELAB_REQUIRE_CHROMIUM=1 to fail instead)\n`,
    );
  return skip;
}

/** A canvas's pixels, as `globalThis.ratelabTestPixels(canvas)` reads them in the page. */
export interface Pixels {
  /** Pixels whose alpha is above 0. */
  painted: number;
  /** A digest of every pixel, to tell one drawing from another (0 to 1e9). */
  digest: number;
}

/**
 * Defines `globalThis.ratelabTestPixels(canvas)` in the page. It reads through a copy made
 * for reading, so the page's own canvases never warn about readbacks.
 */
function installPixelReader(): void {
  interface Canvas {
    width: number;
    height: number;
    getContext(kind: '2d', options: { willReadFrequently: boolean }): Context;
  }
  interface Context {
    drawImage(image: Canvas, x: number, y: number): void;
    getImageData(x: number, y: number, width: number, height: number): { data: Uint8ClampedArray };
  }
  const page = globalThis as unknown as {
    document: { createElement(tag: 'canvas'): Canvas };
    ratelabTestPixels(canvas: Canvas): Pixels;
  };
  page.ratelabTestPixels = (canvas) => {
    const { width, height } = canvas;
    const copy = page.document.createElement('canvas');
    copy.width = width;
    copy.height = height;
    const context = copy.getContext('2d', { willReadFrequently: true });
    context.drawImage(canvas, 0, 0);
    const pixels = context.getImageData(0, 0, width, height).data;
    let painted = 0;
    let digest = 0;
    for (let i = 0; i < pixels.length; i += 4) {
      if ((pixels[i + 3] as number) > 0) painted++;
      digest = (digest * 31 + (pixels[i] as number) + (pixels[i + 1] as number) * 7 + (pixels[i + 3] as number)) % 1e9;
    }
    return { painted, digest };
  };
}

/** A Chromium and a page in it, with what went wrong there. */
export interface OpenedPage {
  browser: Browser;
  page: Page;
  /** Every console error or warning, page error and request for anything but a file. */
  problems: string[];
}

/**
 * Launches Chromium and opens a page of `viewport` (CSS px) that records its problems and
 * has `globalThis.ratelabTestPixels` on every document it loads.
 */
export async function openPage(viewport: { width: number; height: number }): Promise<OpenedPage> {
  if (!available) throw new Error(`no Chromium at ${CHROMIUM}, and RATELAB_REQUIRE_CHROMIUM=1 forbids skipping`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport });
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning')
      problems.push(`console ${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('request', (request) => {
    if (!request.url().startsWith('file:')) problems.push(`request: ${request.url()}`);
  });
  await page.addInitScript(installPixelReader);
  return { browser, page, problems };
}

/** Where a page's content and its tables end, px from the left of the window. */
export interface Widths {
  /** The window's width less any vertical scrollbar. */
  window: number;
  /** The document's full width: above `window` when the page scrolls sideways. */
  document: number;
  /** The right edge of the report's content box (#report, inside its padding). */
  content: number;
  /** Each table matched, in page order. */
  tables: {
    /** The text of the element just before the table (its heading). */
    title: string;
    /** The text of its first row. */
    header: string;
    right: number;
  }[];
}

/** Measures the page's widths and those of the tables `selector` matches. */
export function widthsOf(page: Page, selector: string): Promise<Widths> {
  return page.evaluate((tableSelector) => {
    interface Element {
      getBoundingClientRect(): { right: number };
      previousElementSibling: Element | null;
      textContent: string | null;
    }
    interface Table extends Element {
      rows: { textContent: string }[];
    }
    const browser = globalThis as unknown as {
      document: {
        documentElement: { scrollWidth: number; clientWidth: number };
        querySelector(selector: '#report'): Element;
        querySelectorAll(selector: string): Table[];
      };
      getComputedStyle(element: Element): { paddingRight: string };
    };
    const { scrollWidth, clientWidth } = browser.document.documentElement;
    const report = browser.document.querySelector('#report');
    const content = report.getBoundingClientRect().right - parseFloat(browser.getComputedStyle(report).paddingRight);
    return {
      window: clientWidth,
      document: scrollWidth,
      content,
      tables: [...browser.document.querySelectorAll(tableSelector)].map((table) => ({
        title: table.previousElementSibling?.textContent ?? '',
        header: table.rows[0]?.textContent ?? '',
        right: table.getBoundingClientRect().right,
      })),
    };
  }, selector);
}

/** The header row of each table past the window's right edge. */
export function overflowing(widths: Widths): string[] {
  return widths.tables.filter((table) => table.right > widths.window).map((table) => table.header);
}
