import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** The script and styles an HTML report inlines, so it opens offline. */
export interface HtmlAssets {
  /** uPlot's minified browser build (defines the global `uPlot`). */
  uplotScript: string;
  uplotStyles: string;
  /** ratelab's own page script: reads the embedded data and draws it with uPlot. */
  pageScript: string;
  /** The helpers every page script draws with (page-kit.browser.js), inlined before it. */
  pageKit: string;
  /** The page script of `ratelab audit`'s report (audit-page.browser.js). */
  auditPageScript: string;
  /** The page script of `ratelab compare --sweep-limit`'s report (sweep-page.browser.js). */
  sweepPageScript: string;
}

let loaded: HtmlAssets | undefined;

/**
 * The inlined assets, read once: uPlot from the installed package (resolved like an
 * import, so it is found from src/, dist/ and an installed ratelab alike) and the page
 * script shipped beside this module. uPlot's banner names its home page with a scheme;
 * the scheme is dropped (the notice stays) so the report holds no `http(s)://` at all.
 */
export function htmlAssets(): HtmlAssets {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const read = (specifier: string) => readFileSync(require.resolve(specifier), 'utf8');
  loaded = {
    uplotScript: withoutSchemes(read('uplot/dist/uPlot.iife.min.js')),
    uplotStyles: read('uplot/dist/uPlot.min.css'),
    pageScript: readFileSync(new URL('./html-page.browser.js', import.meta.url), 'utf8'),
    pageKit: readFileSync(new URL('./page-kit.browser.js', import.meta.url), 'utf8'),
    auditPageScript: readFileSync(new URL('./audit-page.browser.js', import.meta.url), 'utf8'),
    sweepPageScript: readFileSync(new URL('./sweep-page.browser.js', import.meta.url), 'utf8'),
  };
  return loaded;
}

/** `script` with the scheme of the URLs in its leading `/*! ... *\/` banner removed. */
export function withoutSchemes(script: string): string {
  return script.replace(/^\/\*![\s\S]*?\*\//, (banner) => banner.replace(/https?:\/\//g, ''));
}
