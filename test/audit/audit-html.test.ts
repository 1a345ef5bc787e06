// The audit's HTML report: its data (what the page script draws) and, in Debian's Chromium
// (/usr/bin/chromium or RATELAB_CHROMIUM) when there is one, the page drawn without an error.
// Skipped with a notice without Chromium; RATELAB_REQUIRE_CHROMIUM=1 (.ci/run) fails instead.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import type { AuditReport } from '../../src/audit/audit-report.js';
import { auditHtml, auditPage } from '../../src/report/html/audit-html.js';
import { SAMPLE_REPORT } from './sample-report.js';

const CHROMIUM = process.env.RATELAB_CHROMIUM ?? '/usr/bin/chromium';
const scratch = mkdtempSync(join(tmpdir(), 'ratelab-audit-html-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the audit page data', () => {
  const page = auditPage(SAMPLE_REPORT);

  it('carries the summary line and the findings and header tables', () => {
    expect(page.summary).toMatch(/^token bucket \(GCRA makes the same decisions\), 20 per 1s, burst 40/);
    expect(page.tables.map((t) => t.title)).toEqual(['findings', 'rate-limit headers', 'weaker conclusions']);
    expect(page.tables[0]?.rows).toHaveLength(SAMPLE_REPORT.findings.length);
  });

  it('has a timeline per probe: every shot with its outcome, the oracle where there is one', () => {
    expect(page.timelines.map((t) => [t.probe, t.sentMs.length, t.oracle?.length ?? null])).toEqual([
      ['discovery', 41, 41],
      ['recovery', 9, 9],
      ['concurrency', 64, null],
    ]);
    expect(new Set(page.timelines[1]?.outcome)).toEqual(new Set(['admitted', 'denied', 'error']));
  });

  it('puts shots in the order they left, each keeping its oracle decision', () => {
    const timeline = {
      probe: 'p',
      purpose: 'q',
      shots: [
        { sentMs: 20, latencyMs: 1, outcome: 'denied' as const, status: 429 },
        { sentMs: 10, latencyMs: 2, outcome: 'admitted' as const, status: 200 },
      ],
      oracle: [false, true],
    };
    const [drawn] = auditPage({ ...SAMPLE_REPORT, timelines: [timeline] }).timelines;
    expect(drawn).toMatchObject({ sentMs: [10, 20], outcome: ['admitted', 'denied'], oracle: [true, false] });
  });

  it('adds the --expect verdict as a table', () => {
    const report: AuditReport = {
      ...SAMPLE_REPORT,
      expect: {
        claim: 'fixed-window 20/1s',
        passed: false,
        mismatches: ['family: expected fixed-window, measured token-bucket'],
      },
    };
    expect(auditPage(report).tables.at(-1)).toEqual({
      title: '--expect fixed-window 20/1s: failed',
      columns: ['mismatch'],
      rows: [['family: expected fixed-window, measured token-bucket']],
    });
  });

  it('says so when the claim passed, rather than an empty table', () => {
    const report: AuditReport = {
      ...SAMPLE_REPORT,
      expect: { claim: 'token-bucket 20/1s burst 40', passed: true, mismatches: [] },
    };
    expect(auditPage(report).tables.at(-1)?.rows).toEqual([['none: the audit bears the claim out']]);
  });

  it('is one self-contained page: no URL with a scheme, no markup from the report', () => {
    const html = auditHtml({ ...SAMPLE_REPORT, target: 'http://127.0.0.1:8080/</script><b>' });
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toContain('</script><b>');
    expect(html).toContain('ratelabAuditCharts');
  });
});

const available = existsSync(CHROMIUM);
if (!available && process.env.RATELAB_REQUIRE_CHROMIUM !== '1')
  process.stderr.write(`\n[ratelab] SKIPPED the audit page's browser test: no Chromium at ${CHROMIUM}\n`);

describe.skipIf(!available && process.env.RATELAB_REQUIRE_CHROMIUM !== '1')('the audit page in Chromium', () => {
  it('draws a chart per probe without a script error', { timeout: 120_000 }, async () => {
    if (!available) throw new Error(`no Chromium at ${CHROMIUM}, and RATELAB_REQUIRE_CHROMIUM=1 forbids skipping`);
    const file = join(scratch, 'audit.html');
    writeFileSync(file, auditHtml(SAMPLE_REPORT));
    const browser = await chromium.launch({ executablePath: CHROMIUM });
    try {
      const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(pathToFileURL(file).href);
      await page.waitForSelector('body[data-ready="true"]');
      const series = await page.evaluate(() =>
        (globalThis as unknown as { ratelabAuditCharts: { series: { label?: string }[] }[] }).ratelabAuditCharts.map(
          (u) => u.series.map((s) => s.label),
        ),
      );
      expect(errors).toEqual([]);
      expect(series).toHaveLength(3);
      expect(series[0]).toEqual([
        'sent',
        'admitted',
        'admitted, delayed',
        'denied',
        'no response (error)',
        'admitted so far (endpoint)',
        'admitted so far (oracle)',
        'oracle decides otherwise',
      ]);
      expect(series[2]).not.toContain('admitted so far (oracle)');
    } finally {
      await browser.close();
    }
  });
});
