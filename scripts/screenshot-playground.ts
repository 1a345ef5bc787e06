// Regenerates docs/images/playground.png, the README's picture of `ratelab playground`:
// writes the page into a temp folder, opens it in headless Chromium (/usr/bin/chromium or
// RATELAB_CHROMIUM) at 1280x800, does the first lesson (10 requests just before and 10 just
// after a window edge), steps half a window on and saves the whole page. Look at the picture before committing it.
//
//   npm run screenshot      (with the HTML report's pictures, scripts/screenshot-report.ts)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { playgroundCommand } from '../src/cli/commands/playground.js';
import { bufferIO } from '../src/report/io.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'docs/images/playground.png');
const CHROMIUM = process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium';

const work = mkdtempSync(join(tmpdir(), 'ratelab-screenshot-'));
try {
  const code = await playgroundCommand({ html: 'playground.html' }, bufferIO({ cwd: work }));
  if (code !== 0) throw new Error(`playground exited ${code}`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(join(work, 'playground.html')).href);
    await page.waitForSelector('body[data-ready="true"]');
    await page.click('#lesson-edge');
    await page.click('#lesson-try');
    await page.fill('#lesson-guess', '20');
    await page.click('#lesson-check');
    // Half a window on: the fixed window's trailing count holds at 2x the limit.
    await page.click('#step-100');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Control+ArrowRight');
    await page.mouse.move(0, 0);
    if (errors.length > 0) throw new Error(`the page failed: ${errors.join('; ')}`);
    await page.screenshot({ path: OUT, fullPage: true });
    process.stdout.write(`wrote ${OUT}\n`);
  } finally {
    await browser.close();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
