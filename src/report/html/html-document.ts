import { htmlAssets } from './html-assets.js';

/**
 * What an HTML report shows, as plain data: the page script draws it. Times are ms of
 * the run (scenario time, or wall time for `attack`); ratios are of the policy's limit.
 */
export interface HtmlReport {
  title: string;
  /** One line under the title: what was run. */
  subtitle: string;
  /** Scenario x contender: worst window / limit and error % (null where it did not run). */
  matrix: {
    columns: string[];
    rows: { scenario: string; cells: ({ ratio: number; errorPercent: number } | null)[] }[];
  };
  scenarios: HtmlScenario[];
  /** The trade-off scatter drawn above the per-scenario sections, when the report compares several contenders. */
  tradeOff?: HtmlTradeOff;
}

/**
 * What each contender gets wrong (x) against what it costs (y, one cost axis at a time,
 * picked in a list): a point per (contender, workload) and each contender's median marked.
 */
export interface HtmlTradeOff {
  title: string;
  /** The x axis's title, e.g. `error % of requests vs the exact oracle`. */
  xLabel: string;
  /** The cost axes, the first shown first. */
  costs: HtmlCostAxis[];
  /** The contenders in legend order; points and medians name one of them. */
  contenders: string[];
  points: HtmlTradeOffPoint[];
  /** One per contender (in `contenders` order): the medians over its points, each cost's over the points that have it. */
  medians: HtmlTradeOffPoint[];
}

export interface HtmlCostAxis {
  /** The axis title and list entry, e.g. `memory per key (B)`. */
  label: string;
  /** The unit after a figure under the cursor: `B`, `x ref`, `calls/decision`. */
  unit: string;
  /** Which way is cheaper, said on the axis: bytes and calls are cheaper lower, speed is better higher. */
  better: 'lower' | 'higher';
  /** Drawn by powers of ten (figures that span decades). */
  log?: boolean;
}

export interface HtmlTradeOffPoint {
  contender: string;
  /** The workload; `median` for a median. */
  scenario: string;
  /** Error % of requests, 0-100. */
  x: number;
  /** One figure per cost axis, in {@link HtmlTradeOff.costs} order; null where not measured. */
  costs: (number | null)[];
}

/** One bar chart: a bar per contender on one shared scale, the figure printed beside it. */
export interface HtmlBars {
  title: string;
  /** After each figure: `B`, `x ref`. */
  unit: string;
  bars: { name: string; value: number }[];
}

/** One workload: its figures, then charts of the views (one shown at a time, picked in a list). */
export interface HtmlScenario {
  name: string;
  description: string;
  /** `100 per 1s`. */
  policy: string;
  windowMs: number;
  notes: string[];
  /** The figures per contender (a row each), the first column naming it. */
  table: HtmlTable;
  /** More facts (attack: responses, latency, Retry-After honesty). */
  facts: HtmlTable[];
  /** Bar charts beside the table (memory and speed per contender, when measured). */
  bars?: HtmlBars[];
  /** Spans to shade on every chart (distributed: the store's outage). */
  spans: { fromMs: number; toMs: number; label: string }[];
  views: HtmlView[];
  /** A chart under the views, sharing their time axis (attack: response times). */
  extra?: HtmlChart;
}

export interface HtmlTable {
  title: string;
  columns: string[];
  rows: (string | number | null)[][];
}

/** One chart's data: lines over a shared x (ms), drawn as steps (each value holds until the next x). */
export interface HtmlChart {
  title: string;
  yLabel: string;
  x: number[];
  series: HtmlSeries[];
}

export interface HtmlSeries {
  name: string;
  values: number[];
  /** `limiter`: a contender's line; `exact`: the oracle's; `offered`: what was asked; `limit`: the 1.0 line. */
  kind: 'limiter' | 'exact' | 'offered' | 'limit';
  /** Off until ticked in the legend. */
  hidden?: boolean;
}

/** A timeline chart and, when a key was followed, the request strips under it (same x). */
export interface HtmlView extends HtmlChart {
  /** The label in the list of views (`worst key attacker`). */
  label: string;
  /** The window to highlight, and what it was. */
  worst: { fromMs: number; toMs: number; label: string } | null;
  /** Per contender: requests per cell of x, by what the contender and the oracle did. */
  strips: HtmlStrip[];
}

export interface HtmlStrip {
  name: string;
  admitted: number[];
  denied: number[];
  falseAdmits: number[];
  falseDenials: number[];
}

/**
 * The self-contained report page: uPlot, its styles, the page script and the data are all
 * inlined, so it opens offline and makes no request. The data goes in a
 * `<script type="application/json">` with every `<` and `/` escaped (`\u003c`, `\/`), so no
 * text from a scenario file can close the element or read as a URL; the page puts it in
 * the DOM as text only.
 */
export function htmlDocument(report: HtmlReport): string {
  return htmlPage(report.title, report, htmlAssets().pageScript);
}

/**
 * A self-contained page: uPlot and its styles, the report's page styles, `data` embedded as
 * in {@link htmlDocument}, the helpers every page script draws with (page-kit.browser.js), and
 * `pageScript` (which reads `#report-data` and draws into
 * `#report`). Every HTML report is one of these, each with its own page script.
 */
export function htmlPage(title: string, data: unknown, pageScript: string): string {
  const assets = htmlAssets();
  return selfContainedPage({
    title,
    styles: PAGE_STYLES,
    id: 'report',
    noscript: 'This report draws its charts with JavaScript: allow scripts for this file.',
    data,
    scripts: [{ source: assets.pageKit }, { source: pageScript }],
  });
}

/** What a page of {@link selfContainedPage} holds besides uPlot. */
export interface PageParts {
  title: string;
  /** The page's own styles, after uPlot's. */
  styles: string;
  /** The id of its `<main>`, which the page script draws into; the data's element is `${id}-data`. */
  id: string;
  /** What `<noscript>` says. */
  noscript: string;
  /** Embedded as JSON that is inert in the page (see {@link embedJson}). */
  data: unknown;
  /** The scripts after uPlot's, in order; `module` ones run as ES modules. */
  scripts: readonly { source: string; module?: boolean }[];
}

/**
 * One HTML file that opens offline and makes no request: uPlot and its styles inlined, then
 * the page's styles, data and scripts (every report and the playground are one of these).
 */
export function selfContainedPage(page: PageParts): string {
  const assets = htmlAssets();
  const scripts = page.scripts.map(
    ({ source, module }) =>
      `<script${module === true ? ' type="module"' : ''}>${safeInElement(source, 'script')}</script>\n`,
  );
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(page.title)}</title>
<style>${safeInElement(assets.uplotStyles, 'style')}</style>
<style>${page.styles}</style>
</head>
<body>
<main id="${page.id}"><h1>${escapeHtml(page.title)}</h1><noscript>${escapeHtml(page.noscript)}</noscript></main>
<script type="application/json" id="${page.id}-data">${embedJson(page.data)}</script>
<script>${safeInElement(assets.uplotScript, 'script')}</script>
${scripts.join('')}</body>
</html>
`;
}

/** `value` as JSON that is inert inside a `<script>` element and holds no literal `://`. */
export function embedJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\//g, '\\/');
}

/** Text with the five HTML specials escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Inlined code with any `</style` or `</script` broken, so it cannot end its element early (it has none today). */
export function safeInElement(code: string, element: 'style' | 'script'): string {
  return code.replace(new RegExp(`</(${element})`, 'gi'), '<\\/$1');
}

/** The page's own styles: readable in light and dark, printable. */
const PAGE_STYLES = `
:root { color-scheme: light; --fg: #1b1b1b; --muted: #5b5b5b; --line: #d7d7d7; --over: #fbe3d6; --ok: #e3eefb; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0; background: #fff; }
main { max-width: 1200px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 2px; } h2 { font-size: 18px; margin: 32px 0 4px; border-top: 1px solid var(--line); padding-top: 16px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
.sub, .muted { color: var(--muted); }
table { border-collapse: collapse; margin: 6px 0 10px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: right; white-space: nowrap; }
th:first-child, td:first-child { text-align: left; }
th { background: #f4f4f4; font-weight: 600; white-space: normal; vertical-align: bottom; }
td.over { background: var(--over); } td.within { background: var(--ok); }
table.audit th, table.audit td { white-space: normal; text-align: left; } p.summary { font-size: 16px; font-weight: 600; }
.notes { margin: 4px 0; padding-left: 20px; color: var(--muted); }
.controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 10px 0 4px; }
.controls button, .controls select { font: inherit; padding: 2px 10px; }
.chart { margin: 4px 0; }
.strip-name { font-weight: 600; margin: 6px 0 0; }
.legend-key { display: flex; flex-wrap: wrap; gap: 14px; margin: 6px 0; }
.legend-key span.swatch { display: inline-block; width: 22px; height: 12px; border: 1px solid #444; vertical-align: -2px; margin-right: 5px; }
.hint { font-size: 12px; color: var(--muted); }
.u-legend { font-size: 12px; } .u-legend th { background: none; border: none; } .u-legend td { border: none; }
.figures { display: flex; flex-wrap: wrap; gap: 0 40px; align-items: flex-start; }
.bars { display: flex; flex-wrap: wrap; gap: 4px 32px; }
.bar-chart { width: 380px; }
.bar-row { display: grid; grid-template-columns: 112px 1fr 108px; gap: 6px; align-items: center; font-size: 13px; line-height: 20px; }
.bar-name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.bar-track { height: 14px; border-left: 1px solid #444; }
.bar { display: block; height: 100%; min-width: 1px; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
.bar-value { font-variant-numeric: tabular-nums; white-space: nowrap; }
.chart.scatter { position: relative; }
.tip { position: absolute; z-index: 2; max-width: 260px; padding: 4px 8px; background: #fff; border: 1px solid #444; font-size: 12px; pointer-events: none; }
.mark-key { font: inherit; background: none; border: 1px solid transparent; padding: 0 4px; cursor: pointer; color: var(--fg); }
.mark-key.off { opacity: 0.4; text-decoration: line-through; }
.mark-key .glyph { font-size: 16px; margin-right: 5px; }
@media print { .controls, .mark-key { border: none; } .tip { display: none; } }
`;
