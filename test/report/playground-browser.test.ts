// `ratelab playground` in a real browser: Debian's Chromium (/usr/bin/chromium, or
// RATELAB_CHROMIUM) through playwright-core, one launch for the file. Keys and clicks drive
// the page; its decisions are checked against the step table below and against the lab's
// own replay of the trace the page exports (the engine `ratelab compare --trace` runs), and
// against `compare --trace --json` itself. Screenshots go to test-artifacts/ (git-ignored;
// RATELAB_TEST_ARTIFACTS moves it).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareCommand } from '../../src/cli/commands/compare.js';
import { playgroundCommand } from '../../src/cli/commands/playground.js';
import { ALGORITHMS, type Algorithm, type Policy } from '../../src/core/policy.js';
import { bufferIO } from '../../src/report/io.js';
import { builtinContender, type Contender } from '../../src/sim/contender.js';
import { replay } from '../../src/sim/replay.js';
import { traceWorkload } from '../../src/sim/workload.js';
import { openPage, skipWithoutChromium } from '../support/browser-page.js';

const ROOT = join(import.meta.dirname, '../..');
const ARTIFACTS = process.env.RATELAB_TEST_ARTIFACTS ?? join(ROOT, 'test-artifacts');
const BROWSER_TIMEOUT_MS = 60_000;

type Strips = Record<string, string[]>;
interface PlaygroundHooks {
  ratelabPlayground: {
    strips(): Strips;
    admitted(): Record<string, boolean[]>;
    peaks(): Record<string, number>;
    trace(): string;
    fragment(): string;
    session(): { now: number; events: number; policy: { limit: number; windowMs: number; burst: number | null } };
  };
}

const hooks = (page: Page) => ({
  strips: () => page.evaluate(() => (globalThis as unknown as PlaygroundHooks).ratelabPlayground.strips()),
  admitted: () => page.evaluate(() => (globalThis as unknown as PlaygroundHooks).ratelabPlayground.admitted()),
  peaks: () => page.evaluate(() => (globalThis as unknown as PlaygroundHooks).ratelabPlayground.peaks()),
  fragment: () => page.evaluate(() => (globalThis as unknown as PlaygroundHooks).ratelabPlayground.fragment()),
  session: () => page.evaluate(() => (globalThis as unknown as PlaygroundHooks).ratelabPlayground.session()),
});

/**
 * The scripted session at 2 per 1 s: three requests at 0 ms, then two at the window edge
 * (1000 ms). A = admitted, D = denied, FD = falsely denied (the oracle admits).
 */
const SCRIPT: { step: string; why: string }[] = [
  { step: 'Space x3 at 0 ms', why: 'a full quota of 2, the third over it: every algorithm admits 2 and denies 1' },
  { step: 'E (next edge, 1000 ms), Space x2', why: 'the 0 ms units left (0, 1000]: all admit both, but the counter' },
  { step: 'sliding-counter at 1000 ms', why: "its previous window's 2 weigh 2 x (1000 - 0) / 1000 = 2: both denied" },
];
const EXPECTED: Strips = {
  'token-bucket': ['A', 'A', 'D', 'A', 'A'],
  gcra: ['A', 'A', 'D', 'A', 'A'],
  'sliding-log': ['A', 'A', 'D', 'A', 'A'],
  'sliding-counter': ['A', 'A', 'D', 'FD', 'FD'],
  'fixed-window': ['A', 'A', 'D', 'A', 'A'],
};

/** Each arrival's allowed flag as the lab's replay of `trace` decides it, per algorithm (compare --trace's engine). */
async function labDecisions(trace: string, policy: Policy): Promise<Record<string, boolean[]>> {
  const out: Record<string, boolean[]> = {};
  for (const algorithm of ALGORITHMS) {
    const flags: boolean[] = [];
    const base = builtinContender(algorithm as Algorithm, policy);
    const recording: Contender = {
      ...base,
      create: async (clock) => {
        const decider = await base.create(clock);
        return {
          consume: (key: string, cost: number) => {
            const decision = decider.consume(key, cost) as { allowed: boolean };
            flags.push(decision.allowed);
            return decision;
          },
        };
      },
    };
    const workload = traceWorkload(trace, policy);
    await replay(recording, workload.open(), { limit: policy.limit, windowMs: policy.windowMs, bucketMs: 1000 });
    out[algorithm] = flags;
  }
  return out;
}

const skip = skipWithoutChromium("the playground's browser test");

describe.skipIf(skip)(
  'ratelab playground in Chromium',
  () => {
    const scratch = mkdtempSync(join(tmpdir(), 'ratelab-playground-browser-'));
    let browser: Browser;
    let page: Page;
    let problems: string[];
    let url: string;

    beforeAll(async () => {
      mkdirSync(ARTIFACTS, { recursive: true });
      expect(await playgroundCommand({ html: 'p.html' }, bufferIO({ cwd: scratch }))).toBe(0);
      url = pathToFileURL(join(scratch, 'p.html')).href;
      ({ browser, page, problems } = await openPage({ width: 1280, height: 800 }));
      await page.goto(url);
      await page.waitForSelector('body[data-ready="true"]');
    }, BROWSER_TIMEOUT_MS);

    afterAll(async () => {
      await browser?.close();
      rmSync(scratch, { recursive: true, force: true });
    });

    it('is one file under 1 MB', () => {
      expect(readFileSync(join(scratch, 'p.html')).length).toBeLessThan(1_000_000);
    });

    it('starts its clock at 0 and decides a scripted sequence as the step table says', async () => {
      await page.click('#mode-step');
      await page.click('#new-session');
      const session = await hooks(page).session();
      expect(session.events).toBe(0);
      expect(session.now).toBeLessThan(2000);
      // The policy: 2 per 1000 ms, typed in and committed.
      await page.fill('#limit', '2');
      await page.press('#limit', 'Tab');
      await page.fill('#window', '1000');
      await page.press('#window', 'Tab');
      // Back to 0 (rewind) with nothing recorded, then the script by keys.
      await page.locator('#rewind').fill('0');
      await page.locator('#clock').click();
      for (let i = 0; i < 3; i++) await page.keyboard.press('Space');
      await page.keyboard.press('e');
      await page.keyboard.press('Space');
      await page.keyboard.press('Space');
      expect(SCRIPT).toHaveLength(3);
      expect(await hooks(page).strips()).toEqual(EXPECTED);
      await expect(page.locator('#lane-sliding-counter .counts').textContent()).resolves.toContain('2 falsely denied');
      // Hovering a cell shows every algorithm's Decision for that request.
      const strip = page.locator('#lane-fixed-window canvas.strip');
      await strip.scrollIntoViewIfNeeded();
      const box = await strip.boundingBox();
      if (!box) throw new Error('no strip');
      await page.mouse.move(box.x + 1 + 2 * 12 + 5, box.y + 12);
      const tip = page.locator('.tip');
      await expect(tip.isVisible()).resolves.toBe(true);
      const text = (await tip.textContent()) ?? '';
      expect(text).toContain('Request 3 at 0 ms');
      for (const name of ALGORITHMS) expect(text).toContain(name);
      expect(text).toContain('retryAfterMs');
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(ARTIFACTS, 'playground-script-1280.png') });
    });

    it('exports its session as a trace that compare --trace decides exactly as the page did', async () => {
      await page.click('#copy-trace');
      const trace = await page.locator('#trace').inputValue();
      expect(trace).toBe('time_ms,key,cost\n0,user,1\n0,user,1\n0,user,1\n1000,user,1\n1000,user,1\n');
      // A longer session too: the edge action and a stream, on top of the script.
      await page.fill('#burst-n', '3');
      await page.click('#edge');
      await page.keyboard.press('ArrowRight');
      for (let i = 0; i < 4; i++) {
        await page.click('#step-100');
        await page.keyboard.press('Space');
      }
      // A cost of 2 per request, and S held for a moment: in step mode each streamed request
      // moves the clock 1/rate (50 ms at 20/s) and the first goes at once.
      await page.fill('#cost', '2');
      await page.press('#cost', 'Tab');
      await page.locator('#clock').click();
      await page.keyboard.press('Space');
      const before = (await hooks(page).session()).now;
      await page.keyboard.down('s');
      await page.keyboard.up('s');
      const streamed = await hooks(page).session();
      expect(streamed.now - before).toBeGreaterThanOrEqual(50);
      await page.click('#copy-trace');
      const longer = await page.locator('#trace').inputValue();
      expect(longer).toContain(`${before},user,2\n${before + 50},user,2\n`);
      writeFileSync(join(scratch, 'session.csv'), longer);
      const policy = { limit: 2, windowMs: 1000 };
      const page_ = await hooks(page).admitted();
      const lab = await labDecisions(join(scratch, 'session.csv'), policy);
      for (const name of ALGORITHMS) expect(page_[name], name).toEqual(lab[name]);
      // The command itself: the same totals per algorithm, false admits and denials included.
      const io = bufferIO({ cwd: scratch });
      const code = await compareCommand(
        { trace: 'session.csv', limit: '2', window: '1000ms', measure: false, chart: false, json: '-' },
        io,
      );
      expect(code, io.err()).toBe(0);
      const rows = (
        JSON.parse(io.out()) as {
          rows: { algorithm: string; admitted: number; denied: number; falseAdmits: number; falseDenials: number }[];
        }
      ).rows;
      const exact = page_.exact as boolean[];
      for (const row of rows) {
        const flags = page_[row.algorithm] as boolean[];
        expect(row.admitted, row.algorithm).toBe(flags.filter(Boolean).length);
        expect(row.denied, row.algorithm).toBe(flags.filter((a) => !a).length);
        expect(row.falseAdmits, row.algorithm).toBe(flags.filter((a, i) => a && !exact[i]).length);
        expect(row.falseDenials, row.algorithm).toBe(flags.filter((a, i) => !a && exact[i]).length);
      }
    });

    it('keeps the session in the URL fragment: reopening the link gives the same decisions', async () => {
      await page.uncheck('#show-gcra');
      const before = await hooks(page).admitted();
      const fragment = await hooks(page).fragment();
      await expect(
        page.evaluate(() => (globalThis as unknown as { location: { hash: string } }).location.hash),
      ).resolves.toBe(`#${fragment}`);
      await page.goto('about:blank');
      await page.goto(`${url}#${fragment}`);
      await page.waitForSelector('body[data-ready="true"]');
      expect(await hooks(page).admitted()).toEqual(before);
      expect((await hooks(page).session()).policy).toEqual({ limit: 2, windowMs: 1000, burst: null });
      await expect(page.locator('.notice').isVisible()).resolves.toBe(false);
      await expect(page.locator('#lane-gcra').isVisible()).resolves.toBe(false);
      await expect(page.locator('#show-gcra').isChecked()).resolves.toBe(false);
      await page.check('#show-gcra');
    });

    it('opens a fresh session with a one-line notice on a malformed fragment', async () => {
      await page.goto('about:blank');
      await page.goto(`${url}#v1&limit=10&window=1000&seq=zz.!!`);
      await page.waitForSelector('body[data-ready="true"]');
      const notice = page.locator('.notice');
      await expect(notice.isVisible()).resolves.toBe(true);
      const text = (await notice.textContent()) ?? '';
      expect(text).toContain('opened a fresh session');
      expect(text).not.toContain('\n');
      expect((await hooks(page).session()).events).toBe(0);
      await expect(page.locator('#lane-fixed-window').isVisible()).resolves.toBe(true);
    });

    it('shows the fixed window at 2.0x the limit on the edge-attack preset, every other algorithm within 1.0', async () => {
      await page.selectOption('#preset', { label: 'edge-attack' });
      await page.click('#load-preset');
      const peaks = await hooks(page).peaks();
      expect(peaks['fixed-window']).toBe(2);
      await expect(page.locator('#preset-note').textContent()).resolves.toContain('key attacker, 800 requests');
      for (const name of ['exact', 'token-bucket', 'gcra', 'sliding-log', 'sliding-counter'])
        expect(peaks[name], name).toBeLessThanOrEqual(1);
      // On the one shared y axis, every line drawn: the axis reaches past 2.
      const chart = await page.evaluate(() =>
        (
          globalThis as unknown as { ratelabPlayground: { chart(): { yMax: number; series: string[] } } }
        ).ratelabPlayground.chart(),
      );
      expect(chart.yMax).toBeGreaterThan(2);
      expect(chart.series).toEqual(['time (s)', 'limit', 'exact', ...ALGORITHMS]);
    });

    it('completes every lesson by keyboard: start, try, answer, check', async () => {
      const ids = ['edge', 'counter', 'bucket', 'gcra', 'log-memory'];
      const answers: Record<string, string> = {};
      for (const id of ids) {
        await page.focus(`#lesson-${id}`);
        await page.keyboard.press('Enter');
        await expect(page.locator('#lesson').getAttribute('data-complete')).resolves.toBe('false');
        // The start focuses the lesson's own action: Enter tries it.
        await page.keyboard.press('Enter');
        await page.focus('#lesson-guess');
        await page.keyboard.type('20');
        await page.focus('#lesson-check');
        await page.keyboard.press('Enter');
        await expect(page.locator('#lesson').getAttribute('data-complete')).resolves.toBe('true');
        answers[id] = (await page.locator('#lesson-answer').textContent()) ?? '';
      }
      expect(answers.edge).toMatch(/^Right\. The fixed window admitted 20 of 20: .* reads 2× the limit/);
      expect(answers.counter).toMatch(/peaks at 1\.\d+×/);
      expect(answers.bucket).toMatch(/token bucket admitted (39|40)/);
      expect(answers.gcra).toMatch(/^Not quite \(you said 20\)\. 0 of \d+ decisions differ/);
      expect(answers['log-memory']).toContain('1000 timestamps × 8 B = 8000 B');
      await page.screenshot({ path: join(ARTIFACTS, 'playground-lessons-1280.png') });
    });

    it('fits a 390-px-wide phone screen: no sideways scrolling', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.selectOption('#preset', { label: 'edge-attack' });
      await page.click('#load-preset');
      const widths = await page.evaluate(() => {
        const root = (
          globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }
        ).document.documentElement;
        return { document: root.scrollWidth, window: root.clientWidth };
      });
      expect(widths.document).toBeLessThanOrEqual(widths.window);
      await page.screenshot({ path: join(ARTIFACTS, 'playground-390.png'), fullPage: true });
      await page.setViewportSize({ width: 1280, height: 800 });
    });

    it('made no request, and logged no console error or page error', () => {
      expect(problems).toEqual([]);
    });
  },
  BROWSER_TIMEOUT_MS,
);
