// The HTML report's builder (src/report/html/): the page's structure, what it embeds
// and how (escaped, no URL), and the bound on points that keeps a big run's file small.
// test/report/html-browser.test.ts opens a real report in Chromium.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { attackCommand } from '../../src/cli/commands/attack.js';
import { compareCommand } from '../../src/cli/commands/compare.js';
import { distributedCommand } from '../../src/cli/commands/distributed.js';
import { startServe } from '../cli/run-serve.js';
import { comparisonRow } from '../support/comparison-row.js';
import { bufferIO } from '../../src/report/io.js';
import { downsampleMinMax } from '../../src/report/html/downsample.js';
import { comparisonHtml, comparisonReport } from '../../src/report/html/compare-html.js';
import { htmlAssets, withoutSchemes } from '../../src/report/html/html-assets.js';
import { embedJson, htmlDocument, type HtmlReport } from '../../src/report/html/html-document.js';
import { HTML_MAX_POINTS, htmlGrid, timelineHtmlView } from '../../src/report/html/html-views.js';
import type { ComparisonRow, WorkloadComparison } from '../../src/sim/comparison.js';

const scratch = mkdtempSync(join(tmpdir(), 'ratelab-html-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DATA_ELEMENT = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/;

/** The text of a page's data element: the report's JSON, as the page holds it. */
function dataText(page: string): string {
  const match = DATA_ELEMENT.exec(page);
  if (!match) throw new Error('no #report-data element');
  return match[1] as string;
}

/** The report data embedded in a page, parsed back as the page script reads it. */
function embedded(page: string): HtmlReport {
  return JSON.parse(dataText(page)) as HtmlReport;
}

/**
 * Every resource a page would fetch: src/href attributes, CSS url(), `@import`, outside the
 * data element (inert text: see the test of what it may hold).
 */
function resourceReferences(page: string): string[] {
  const markup = page.replace(DATA_ELEMENT, '');
  return [
    ...markup.matchAll(/\b(?:src|href)\s*=\s*["']?([^"'\s>]+)|url\(\s*["']?([^"')]+)|@import\s+["']([^"']+)/gi),
  ].map((m) => m[1] ?? m[2] ?? m[3] ?? '');
}

const BAD_NAME = '</script><script>alert(1)</script><!--';
const hostile: WorkloadComparison = {
  name: BAD_NAME,
  description: 'from a file: https://evil.example/x.js and <img src=x onerror=alert(2)> & "quotes"',
  policy: { limit: 10, windowMs: 1000 },
  rows: [],
  timelines: [
    { algorithm: 'fixed-window', timeline: { originMs: 0, bucketMs: 100, offered: [1, 2, 3], admitted: [1, 2, 2] } },
  ],
  worstWindows: [null],
  notes: ['note with </style> and http://example.com'],
};

describe('the HTML report page', () => {
  it('inlines uPlot, its styles and the page script, and references no resource at all', () => {
    const page = comparisonHtml([hostile], 'subtitle');
    const assets = htmlAssets();
    expect(page.startsWith('<!doctype html>')).toBe(true);
    expect(page).toContain(assets.uplotScript);
    expect(page).toContain(assets.uplotStyles);
    expect(page).toContain(assets.pageKit);
    expect(page).toContain(assets.pageScript);
    expect(resourceReferences(page)).toEqual([]);
    expect(page).not.toMatch(/https?:\/\//);
    // One element of each kind, so nothing closed an element early.
    // The data, uPlot, the helpers every page draws with and the page script.
    expect(page.match(/<script\b/g)).toHaveLength(4);
    expect(page.match(/<\/script>/g)).toHaveLength(4);
  });

  it('the data element may hold `src=` as text, but no `<` and no bare `/`: it forms no tag, attribute or URL', () => {
    const text = dataText(comparisonHtml([hostile], 'subtitle'));
    // The guarantee docs/report.md states, exactly: outside the data element no resource
    // reference (the test above); inside it, scenario text as JSON with every `<` and `/` escaped.
    expect(text).toContain('<img src=x'.replace('<', '\\u003c'));
    expect(text).not.toContain('<');
    expect(text).not.toMatch(/(?<!\\)\//);
  });

  it('embeds text from scenario files escaped: it comes back unchanged and can close nothing', () => {
    const page = comparisonHtml([hostile], 'subtitle');
    expect(page).not.toContain('</script><script>alert');
    expect(page).not.toContain('<img src=x');
    const data = embedded(page);
    expect(data.scenarios[0]?.name).toBe(BAD_NAME);
    expect(data.scenarios[0]?.description).toBe(hostile.description);
    expect(data.scenarios[0]?.notes).toContain(hostile.notes[0]);
    expect(data.matrix.rows[0]?.scenario).toBe(BAD_NAME);
  });

  it.each([
    ['</script>', '\\u003c\\/script>'],
    ['<!--', '\\u003c!--'],
    ['https://x', 'https:\\/\\/x'],
    ['\u2028', '\u2028'],
  ])('embedJson escapes %j', (text, inPage) => {
    const json = embedJson({ text });
    expect(json).toContain(inPage);
    expect(JSON.parse(json)).toEqual({ text });
  });

  it('titles the page with the HTML specials escaped', () => {
    const page = htmlDocument({ title: '<b>&"x"', subtitle: '', matrix: { columns: [], rows: [] }, scenarios: [] });
    expect(page).toContain('<title>&#60;b&#62;&#38;&#34;x&#34;</title>');
  });

  it("drops the scheme from uPlot's banner and finds no other URL in it", () => {
    expect(withoutSchemes('/*! https://github.com/leeoniya/uPlot (v1) */var a="https://x";')).toBe(
      '/*! github.com/leeoniya/uPlot (v1) */var a="https://x";',
    );
    expect(htmlAssets().uplotScript).toMatch(/^\/\*! github\.com\/leeoniya\/uPlot/);
    expect(htmlAssets().uplotScript).not.toMatch(/https?:\/\//);
  });
});

describe('compare --html edge-attack', () => {
  it('writes one page with the matrix, the five algorithms, the exact line, strips and the fixed window at 2x just after the window edge', async () => {
    const io = bufferIO({ cwd: scratch });
    expect(await compareCommand({ scenarios: ['edge-attack'], measure: false, chart: false, html: 'r.html' }, io)).toBe(
      0,
    );
    const page = readFileSync(join(scratch, 'r.html'), 'utf8');
    expect(page).not.toMatch(/https?:\/\//);
    const data = embedded(page);
    expect(data.matrix.columns).toEqual(['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window']);
    expect(data.matrix.rows).toEqual([
      {
        scenario: 'edge-attack',
        cells: [1, 1, 1, 1, 2].map((ratio) => ({ ratio, errorPercent: ratio === 2 ? 50 : 0 })),
      },
    ]);
    const view = data.scenarios[0]?.views[0];
    expect(view?.label).toBe('worst key attacker');
    expect(view?.series.map((s) => s.name)).toEqual([
      'limit',
      'exact',
      'token-bucket',
      'gcra',
      'sliding-log',
      'sliding-counter',
      'fixed-window',
    ]);
    const peak = (name: string) => Math.max(...(view?.series.find((s) => s.name === name)?.values ?? []));
    expect(peak('fixed-window')).toBe(2);
    expect(peak('exact')).toBe(1);
    // The 2x starts in the column that holds the window edge at 1 s: 100 at 999 ms, 100 at 1000 ms.
    const fixed = view?.series.find((s) => s.name === 'fixed-window')?.values ?? [];
    expect(view?.x[fixed.indexOf(2)]).toBe(1000);
    expect(view?.worst).toEqual({ fromMs: 0, toMs: 1000, label: 'worst window: fixed-window, 2.00x the limit' });
    expect(view?.strips.map((s) => s.name)).toEqual([
      'token-bucket',
      'gcra',
      'sliding-log',
      'sliding-counter',
      'fixed-window',
      'exact',
    ]);
    const fixedStrip = view?.strips.find((s) => s.name === 'fixed-window');
    const sum = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);
    expect([
      sum(fixedStrip?.admitted),
      sum(fixedStrip?.denied),
      sum(fixedStrip?.falseAdmits),
      sum(fixedStrip?.falseDenials),
    ]).toEqual([800, 0, 400, 0]);
    expect(view?.x.length).toBeLessThanOrEqual(HTML_MAX_POINTS);
  });

  it("charts a composite's worst key under each limit, each view marking its own worst window, the strips once", async () => {
    const io = bufferIO({ cwd: scratch });
    const options = { scenarios: ['composite-burst-and-hour'], measure: false, chart: false, html: 'c.html' };
    expect(await compareCommand(options, io)).toBe(0);
    const views = embedded(readFileSync(join(scratch, 'c.html'), 'utf8')).scenarios[0]?.views ?? [];
    expect(views.map((v) => v.label)).toEqual(['worst key client (1s limit)', 'worst key client (1h limit)']);
    const peak = (i: number, name: string) =>
      Math.max(...(views[i]?.series.find((s) => s.name === name)?.values ?? []));
    // why: the token bucket's burst plus an hour of refill is 1,999 in the trailing hour; the exact oracle holds both limits
    expect([peak(0, 'token-bucket'), peak(1, 'token-bucket'), peak(1, 'exact')]).toEqual([1.95, 1.999, 1]);
    expect(views[1]?.worst?.label).toBe('worst window: token-bucket, 2.00x the limit');
    expect(views[0]?.strips.length).toBe(6);
    expect(views[1]?.strips).toEqual([]);
  });
  it('refuses --html on the file --json writes, and a second stdout, before running', async () => {
    await expect(
      compareCommand(
        { scenarios: ['edge-attack'], measure: false, json: 'same.out', html: 'same.out' },
        bufferIO({ cwd: scratch }),
      ),
    ).rejects.toThrow('--html: same.out is the file --json writes too');
    await expect(
      compareCommand({ scenarios: ['edge-attack'], measure: false, csv: '-', html: '-' }, bufferIO({ cwd: scratch })),
    ).rejects.toThrow('--csv: only one of --csv and --html can go to stdout (-)');
    await expect(
      compareCommand(
        { scenarios: ['edge-attack'], measure: false, html: 'no/such/folder/r.html' },
        bufferIO({ cwd: scratch }),
      ),
    ).rejects.toThrow(/^--html: no\/such\/folder\/r\.html: the folder .* does not exist$/);
  });
});

describe('distributed --html and attack --html', () => {
  it('distributed: a line and a strip per design and fail mode for the worst key, the outage shaded', async () => {
    const io = bufferIO({ cwd: scratch });
    expect(
      await distributedCommand(
        { outage: '10s-20s', strategy: 'central,local-split', chart: false, html: 'd.html' },
        io,
      ),
    ).toBe(0);
    const data = embedded(readFileSync(join(scratch, 'd.html'), 'utf8'));
    const designs = ['central/open', 'central/closed', 'central/local', 'local-split'];
    expect(data.title).toBe('ratelab distributed');
    expect(data.matrix.columns).toEqual(designs);
    const scenario = data.scenarios[0];
    expect(scenario?.spans).toEqual([{ fromMs: 10_000, toMs: 20_000, label: 'store unreachable 10s-20s' }]);
    expect(scenario?.facts[0]?.columns).toContain('added latency ms');
    expect(scenario?.views[0]?.label).toBe('worst key api-key');
    expect(scenario?.views[0]?.series.map((s) => s.name)).toEqual(['limit', 'exact', ...designs]);
    expect(scenario?.views[0]?.strips.map((s) => s.name)).toEqual([...designs, 'exact']);
    // Failing closed during the outage admits nothing then: its line is 0 by the outage's end.
    const view = scenario?.views[0];
    const closed = view?.series.find((s) => s.name === 'central/closed')?.values ?? [];
    expect(closed[view?.x.findIndex((x) => x >= 19_000) ?? -1]).toBe(0);
  });

  it('attack: the endpoint against the exact oracle, the HTTP facts as tables, response times, and no literal URL', async () => {
    const serve = await startServe({ quiet: true, algorithm: 'fixed-window', limit: 5, window: '1s' });
    try {
      const io = bufferIO({ cwd: scratch });
      const edge = fileURLToPath(new URL('../fixtures/http-edge.yaml', import.meta.url));
      expect(
        await attackCommand(
          { url: serve.url, scenario: edge, speed: 10, align: '1s', chart: false, html: 'a.html' },
          io,
        ),
      ).toBe(0);
    } finally {
      await serve.stop();
    }
    const page = readFileSync(join(scratch, 'a.html'), 'utf8');
    expect(page).not.toMatch(/https?:\/\//);
    const data = embedded(page);
    const scenario = data.scenarios[0];
    const host = new URL(serve.url).host;
    expect(data.subtitle).toContain(`against ${serve.url}`);
    expect(scenario?.views[0]?.series.map((s) => s.name)).toEqual(['limit', 'exact', host]);
    expect(scenario?.views[0]?.strips.map((s) => s.name)).toEqual([host, 'exact']);
    expect(scenario?.facts.map((f) => f.title)).toEqual([
      'responses to the workload',
      'response times, ms',
      'Retry-After honesty (retries sent when a 429 said to; not in the figures above)',
      'rate-limit headers',
    ]);
    expect(scenario?.extra?.series.map((s) => s.name)).toEqual(['slowest', 'mean']);
    expect(scenario?.extra?.x).toEqual(scenario?.views[0]?.x);
  });
});

/** A row with the figures the trade-off reads. */
function costRow(
  algorithm: string,
  errorRate: number,
  worstWindowRatio: number,
  bytesPerKey: number | null,
  speedRatio: number | null,
): ComparisonRow {
  return comparisonRow(algorithm, worstWindowRatio, errorRate, { bytesPerKey, speedRatio });
}

function costWorkload(name: string, rows: ComparisonRow[]): WorkloadComparison {
  return {
    name,
    description: 'a test workload',
    policy: { limit: 100, windowMs: 1000 },
    rows: rows.map((row) => ({ ...row, scenario: name })),
    timelines: [],
    worstWindows: rows.map(() => null),
    notes: [],
  };
}

const MEASURED = [
  costWorkload('a', [costRow('sliding-log', 0, 1, 120.04, 0.41), costRow('fixed-window', 50, 2, 60, 1.2)]),
  costWorkload('b', [costRow('sliding-log', 0, 1, 1300, 0.2), costRow('fixed-window', 10, 1.5, 62, 1)]),
  costWorkload('c', [costRow('sliding-log', 0, 0.9, 9000, 0.3), costRow('fixed-window', 20, 1.2, 64, 1.1)]),
];

describe('the trade-off scatter and the bars, as data', () => {
  it('puts every (algorithm, scenario) at (error %, each cost), and each median, the measured costs first', () => {
    const tradeOff = comparisonReport(MEASURED, 't', 's').tradeOff;
    expect(tradeOff?.contenders).toEqual(['sliding-log', 'fixed-window']);
    expect(tradeOff?.costs).toEqual([
      { label: 'memory per key (B)', unit: 'B', better: 'lower', log: true },
      { label: 'speed (x ref)', unit: 'x ref', better: 'higher' },
      { label: 'worst window / limit', unit: 'x the limit', better: 'lower' },
    ]);
    expect(tradeOff?.points).toHaveLength(6);
    expect(tradeOff?.points[0]).toEqual({ contender: 'sliding-log', scenario: 'a', x: 0, costs: [120, 0.41, 1] });
    expect(tradeOff?.points[3]).toEqual({ contender: 'fixed-window', scenario: 'b', x: 10, costs: [62, 1, 1.5] });
    expect(tradeOff?.medians).toEqual([
      { contender: 'sliding-log', scenario: 'median', x: 0, costs: [1300, 0.3, 1] },
      { contender: 'fixed-window', scenario: 'median', x: 20, costs: [62, 1.1, 1.5] },
    ]);
  });

  it.each([
    {
      results: [MEASURED[0] as WorkloadComparison],
      log: false,
      why: '120 and 60 B are within a factor of 10: a linear axis reads better',
    },
    { results: MEASURED, log: true, why: '60 to 9,000 B spans decades: by powers of ten, or the cheap ones sit on 0' },
  ])('memory by powers of ten: $log ($why)', ({ results, log }) => {
    expect(comparisonReport(results, 't', 's').tradeOff?.costs[0]?.log === true).toBe(log);
  });

  it.each([
    {
      what: '--no-measure',
      results: [
        costWorkload('a', [costRow('sliding-log', 0, 1, null, null), costRow('fixed-window', 50, 2, null, null)]),
      ],
      costs: ['worst window / limit'],
      why: 'no cost was measured: the scatter weighs error against the burst let through',
    },
    {
      what: 'memory only',
      results: [
        costWorkload('a', [costRow('sliding-log', 0, 1, 100, null), costRow('fixed-window', 50, 2, null, null)]),
      ],
      costs: ['memory per key (B)', 'worst window / limit'],
      why: 'an axis appears when any point has its figure; the point without it is left off that axis',
    },
  ])('the cost axes under $what: $costs ($why)', ({ results, costs }) => {
    const tradeOff = comparisonReport(results, 't', 's').tradeOff;
    expect(tradeOff?.costs.map((c) => c.label)).toEqual(costs);
    expect(tradeOff?.points.map((p) => p.costs.length)).toEqual([costs.length, costs.length]);
  });

  it('leaves the scatter out for one contender: nothing to weigh it against', () => {
    const one = [costWorkload('a', [costRow('gcra', 0, 1, 80, 1)])];
    expect(comparisonReport(one, 't', 's')).not.toHaveProperty('tradeOff');
  });

  it("draws each scenario's memory and speed bars from the table's figures, rounded as the table is", () => {
    const report = comparisonReport(MEASURED, 't', 's');
    expect(report.scenarios[0]?.bars).toEqual([
      {
        title: 'memory per key (B, lower is cheaper)',
        unit: 'B',
        bars: [
          { name: 'sliding-log', value: 120 },
          { name: 'fixed-window', value: 60 },
        ],
      },
      {
        title: 'speed (x ref, higher is faster)',
        unit: 'x ref',
        bars: [
          { name: 'sliding-log', value: 0.41 },
          { name: 'fixed-window', value: 1.2 },
        ],
      },
    ]);
    const table = report.scenarios[0]?.table;
    const column = (name: string) => table?.rows.map((row) => row[table.columns.indexOf(name)]);
    expect(column('B/key')).toEqual([120, 60]);
    expect(column('speed x ref')).toEqual([0.41, 1.2]);
  });

  it('has no bars under --no-measure', async () => {
    const io = bufferIO({ cwd: scratch });
    expect(
      await compareCommand({ scenarios: ['edge-attack'], measure: false, chart: false, html: 'nm.html' }, io),
    ).toBe(0);
    const data = embedded(readFileSync(join(scratch, 'nm.html'), 'utf8'));
    expect(data.scenarios[0]).not.toHaveProperty('bars');
    expect(data.tradeOff?.costs.map((c) => c.label)).toEqual(['worst window / limit']);
    expect(data.tradeOff?.medians.map((m) => [m.contender, m.x, m.costs[0]])).toEqual([
      ['token-bucket', 0, 1],
      ['gcra', 0, 1],
      ['sliding-log', 0, 1],
      ['sliding-counter', 0, 1],
      ['fixed-window', 50, 2],
    ]);
  });
});

describe('the bound on points', () => {
  it('thins a million buckets to at most HTML_MAX_POINTS, keeping a one-bucket 2x spike and the lowest dip', () => {
    const n = 1_000_000;
    const offered = new Array<number>(n).fill(5);
    const admitted = new Array<number>(n).fill(5);
    admitted[654_321] = 200;
    admitted[123_457] = 0;
    const view = timelineHtmlView(
      'all keys',
      [{ algorithm: 'fixed-window', timeline: { originMs: 0, bucketMs: 1000, offered, admitted } }],
      { limit: 100, windowMs: 1000 },
    );
    const line = view.series.find((s) => s.name === 'fixed-window')?.values ?? [];
    expect(view.x.length).toBeLessThanOrEqual(HTML_MAX_POINTS);
    expect(line).toHaveLength(view.x.length);
    expect(Math.max(...line)).toBe(2);
    expect(Math.min(...line)).toBe(0);
    expect(JSON.stringify(view).length).toBeLessThan(200_000);
  });

  it('downsampleMinMax keeps every series within the bound, with its extremes, in time order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 1, maxLength: 3000 }),
        fc.integer({ min: 2, max: 500 }),
        (values, maxPoints) => {
          const x = values.map((_, i) => i * 10);
          const out = downsampleMinMax(x, [values, values.map((v) => -v)], maxPoints);
          expect(out.x.length).toBeLessThanOrEqual(Math.max(maxPoints, values.length <= maxPoints ? values.length : 0));
          for (let i = 1; i < out.x.length; i++)
            expect(out.x[i] as number).toBeGreaterThanOrEqual(out.x[i - 1] as number);
          expect(Math.max(...(out.series[0] as number[]))).toBe(Math.max(...values));
          expect(Math.min(...(out.series[0] as number[]))).toBe(Math.min(...values));
          expect(Math.max(...(out.series[1] as number[]))).toBe(-Math.min(...values));
        },
      ),
    );
  });

  it('htmlGrid covers any run in at most HTML_MAX_POINTS round columns', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1e9 }), fc.integer({ min: 1, max: 1e12 }), (startMs, lengthMs) => {
        const grid = htmlGrid({ startMs, endMs: startMs + lengthMs });
        expect(grid.count).toBeLessThanOrEqual(HTML_MAX_POINTS);
        expect(grid.fromMs + grid.count * grid.widthMs).toBeGreaterThanOrEqual(startMs + lengthMs);
      }),
    );
  });
});
