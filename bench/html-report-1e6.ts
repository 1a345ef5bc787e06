// The HTML report of a one-million-arrival trace: its size, and how long Chromium takes
// to draw it. Writes a CSV trace (1e6 lines over 1,000 s: 1,000 uniform keys, and one
// attacker sending a full quota either side of a window edge every 10 s) to a temp folder,
// runs the built CLI's `compare --trace ...` without and with `--html`, then opens the page in headless
// Chromium three times and reads the page's own clock from navigation to every chart drawn
// (window.ratelabRenderMs), the part of it its script took (ratelabScriptMs: parse the data,
// build the charts), and the time a zoom takes; and the machine's load average. Needs `npm run build` and Chromium
// (/usr/bin/chromium or RATELAB_CHROMIUM). docs/report.md quotes a run.
//
//   npm run build && npx tsx bench/html-report-1e6.ts
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { Random } from '../src/traffic/random.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LINES = 1_000_000;
const KEYS = 1_000;
const CHROMIUM = process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium';

async function writeTrace(path: string): Promise<void> {
  const out = createWriteStream(path);
  const random = new Random(13);
  out.write('time_ms,key,cost\n');
  let chunk: string[] = [];
  let written = 0;
  for (let t = 0; written < LINES; t++) {
    // Every 10 s: 100 requests at 999 ms and 100 at 1000 ms past it, the edge attack.
    const edge = t % 10_000;
    const burst = edge === 999 || edge === 1000 ? 100 : 0;
    for (let i = 0; i < burst && written < LINES; i++, written++) chunk.push(`${t},attacker,1`);
    if (written < LINES) {
      chunk.push(`${t},client-${random.below(KEYS)},1`);
      written++;
    }
    if (chunk.length >= 10_000) {
      if (!out.write(`${chunk.join('\n')}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = [];
    }
  }
  out.write(chunk.length > 0 ? `${chunk.join('\n')}\n` : '');
  await new Promise<void>((resolve, reject) => out.end((error?: Error | null) => (error ? reject(error) : resolve())));
}

const work = mkdtempSync(join(tmpdir(), 'ratelab-html-1e6-'));
try {
  const trace = join(work, 'trace.csv');
  await writeTrace(trace);
  const report = join(work, 'report.html');
  // The same compare without and with --html: the report's cost is its second pass over the trace.
  const compare = (extra: string[]) => {
    const started = performance.now();
    execFileSync(
      process.execPath,
      [
        join(ROOT, 'bin/ratelab.js'),
        'compare',
        '--trace',
        trace,
        '--limit',
        '100',
        '--window',
        '1s',
        '--no-measure',
        '--no-chart',
        ...extra,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    return Math.round((performance.now() - started) / 100) / 10;
  };
  const plainSeconds = compare([]);
  const compareSeconds = compare(['--html', report]);
  const keys = /"label":"((?:worst )?key [^"]*)"/g;
  const views = [...readFileSync(report, 'utf8').matchAll(keys)].map((m) => m[1]);
  const bytes = statSync(report).size;
  const browser = await chromium.launch({ executablePath: CHROMIUM });
  const loads: { renderMs: number; scriptMs: number; zoomMs: number; errors: string[] }[] = [];
  for (let i = 0; i < 3; i++) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(pathToFileURL(report).href);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
    const { renderMs, scriptMs } = await page.evaluate(() => {
      const timing = globalThis as unknown as { ratelabRenderMs: number; ratelabScriptMs: number };
      return { renderMs: timing.ratelabRenderMs, scriptMs: timing.ratelabScriptMs };
    });
    // A zoom, timed to the frame after it (uPlot redraws in a microtask).
    const zoomMs = await page.evaluate(async () => {
      const browser = globalThis as unknown as {
        requestAnimationFrame(callback: () => void): void;
        ratelabCharts: { timeline: { setScale(k: string, r: { min: number; max: number }): void } }[];
      };
      const start = performance.now();
      browser.ratelabCharts[0]?.timeline.setScale('x', { min: 100, max: 130 });
      await new Promise<void>((resolve) => browser.requestAnimationFrame(resolve));
      return performance.now() - start;
    });
    loads.push({ renderMs: Math.round(renderMs), scriptMs: Math.round(scriptMs), zoomMs: Math.round(zoomMs), errors });
    await page.close();
  }
  await browser.close();
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
  process.stdout.write(
    `${JSON.stringify({
      arrivals: LINES,
      plainSeconds,
      compareSeconds,
      views,
      reportBytes: bytes,
      reportMiB: Math.round((bytes / 2 ** 20) * 100) / 100,
      renderMsMedian: median(loads.map((l) => l.renderMs)),
      scriptMsMedian: median(loads.map((l) => l.scriptMs)),
      zoomMsMedian: median(loads.map((l) => l.zoomMs)),
      loads,
      loadAverage: loadavg().map((x) => Math.round(x * 10) / 10),
    })}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
