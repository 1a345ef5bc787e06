// How long the playground page takes to replay a recorded session of 10,000 requests in
// headless Chromium (the goal: under 1 s): the five limiters and the oracle deciding
// every request, then the strips, the state views and the chart drawn once. The baseline,
// measured in the same run: the same 10,000 requests through the five limiters of the built
// library in Node (dist/lib, decisions only), so the ratio says what the page adds.
//
//   npm run build && node bench/playground-replay.mjs            (7 rounds, the median)
//
// The page's time runs from the call of its replay hook to the next frame drawn.
//
// Chromium: /usr/bin/chromium or RATELAB_CHROMIUM.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = 7;
const REQUESTS = 10_000;
const POLICY = { limit: 100, windowMs: 1000, burst: null };

/** 10,000 requests over about 40 s: a steady stream with a burst of 50 at every 997th ms. */
function session() {
  const events = [];
  for (let t = 0; events.length < REQUESTS; t += 4) {
    events.push([t, 1]);
    if (t % 997 < 4) for (let i = 0; i < 50 && events.length < REQUESTS; i++) events.push([t, 1]);
  }
  return events;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const work = mkdtempSync(join(tmpdir(), 'ratelab-playground-bench-'));
try {
  const file = join(work, 'playground.html');
  execFileSync(process.execPath, [join(root, 'bin/ratelab.js'), 'playground', '--html', file], { stdio: 'ignore' });
  const events = session();

  const { createLimiter, ManualClock } = await import(pathToFileURL(join(root, 'dist/lib/index.js')).href);
  const baseline = [];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    const clock = new ManualClock(0);
    const limiters = ['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'].map((a) =>
      createLimiter(a, { limit: POLICY.limit, windowMs: POLICY.windowMs }, { clock }),
    );
    for (const [t, cost] of events) {
      clock.set(t);
      for (const limiter of limiters) limiter.consume('user', cost);
    }
    baseline.push(performance.now() - start);
  }

  const browser = await chromium.launch({
    executablePath: process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox'],
  });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="true"]');
  const times = [];
  for (let round = 0; round < ROUNDS; round++)
    times.push(
      await page.evaluate(
        async ([list, policy]) => {
          // Until the next frame has been drawn: uPlot paints its canvas in a microtask.
          const start = performance.now();
          globalThis.ratelabPlayground.replay(list, policy);
          await new Promise((resolve) => globalThis.requestAnimationFrame(() => setTimeout(resolve, 0)));
          return performance.now() - start;
        },
        [events, POLICY],
      ),
    );
  const decided = await page.evaluate(() => globalThis.ratelabPlayground.session().events);
  await browser.close();
  if (decided !== REQUESTS) throw new Error(`the page holds ${decided} requests, not ${REQUESTS}`);

  const page50 = median(times);
  const node50 = median(baseline);
  process.stdout.write(
    [
      `playground replay of ${REQUESTS} requests, ${ROUNDS} rounds, load ${loadavg()[0].toFixed(2)}`,
      `  page (decide + draw, headless Chromium): median ${page50.toFixed(0)} ms (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)}); goal < 1000 ms: ${page50 < 1000 ? 'met' : 'MISSED'}`,
      `  baseline (the five limiters in Node):    median ${node50.toFixed(1)} ms`,
      `  ratio page / baseline: ${(page50 / node50).toFixed(1)}x`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
