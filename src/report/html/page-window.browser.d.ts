// The globals the HTML report's page script (html-page.browser.js) sets on `window`: the
// browser test and scripts/screenshot-report.ts read them. Seen only by
// tsc -p tsconfig.browser.json (tsconfig.json excludes it), where the page script's JSDoc
// typedefs such as ChartRecord are global types.

interface Window {
  /** The helpers every page script draws with (page-kit.browser.js). */
  ratelabKit: {
    el<K extends keyof HTMLElementTagNameMap>(
      tag: K,
      className?: string | null,
      text?: unknown,
    ): HTMLElementTagNameMap[K];
    table(spec: import('./html-document.js').HtmlTable, className?: string): HTMLDivElement;
    chartWidth(root: HTMLElement): number;
  };
  /** The trade-off scatter (html-page.browser.js), when the report has one. */
  ratelabTradeOff?: TradeOffRecord;
  /** Every chart drawn, per scenario. */
  ratelabCharts: ChartRecord[];
  /** `performance.now()` when the page script finished drawing, ms. */
  ratelabRenderMs: number;
  /** How long the page script took to draw, ms. */
  ratelabScriptMs: number;
  /** The audit report's timelines, one per probe drawn (audit-page.browser.js). */
  ratelabAuditCharts: uPlot[];
}
