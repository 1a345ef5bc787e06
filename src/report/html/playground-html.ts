import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALGORITHMS, type Algorithm } from '../../core/policy.js';
import { RatelabError } from '../../core/errors.js';
import { packageRoot } from '../../config/package-root.js';
import { builtinScenarios } from '../../scenario/builtins.js';
import type { Scenario } from '../../scenario/scenario.js';
import { openScenario } from '../../traffic/stream.js';
import { htmlAssets } from './html-assets.js';
import { selfContainedPage } from './html-document.js';

/** The most arrivals a preset carries (its one key's first ones), so the page stays small. */
export const PRESET_MAX_ARRIVALS = 2000;

/** One built-in scenario as a playground preset: one key's arrivals, replayed on the page's clock. */
export interface PlaygroundPreset {
  /** The scenario's name (`edge-attack`). */
  name: string;
  description: string;
  /** The scenario's policy: limit units per windowMs ms, burst for the buckets. */
  policy: { limit: number; windowMs: number; burst?: number };
  /** The key followed: the scenario's busiest one among its first arrivals. */
  key: string;
  /** `[t, cost]` per arrival of that key, t in whole ms from 0, in time order; at most {@link PRESET_MAX_ARRIVALS}. */
  arrivals: [number, number][];
  /** Whether the scenario had more arrivals for that key than the preset keeps. */
  truncated: boolean;
}

/** What the playground page is given: the algorithms in report order and the presets. */
export interface PlaygroundData {
  algorithms: readonly Algorithm[];
  presets: PlaygroundPreset[];
}

/**
 * The presets: every built-in scenario of a single policy (a composite has no one policy
 * to show), its busiest key's arrivals. Closed-loop sources (retry storms) are pulled
 * without decisions, so they show the first attempts only; the page decides on them itself.
 */
export function playgroundPresets(scenarios: readonly Scenario[] = builtinScenarios()): PlaygroundPreset[] {
  const presets: PlaygroundPreset[] = [];
  for (const scenario of scenarios) {
    if (scenario.limits !== undefined) continue;
    const byKey = new Map<string, [number, number][]>();
    const stream = openScenario(scenario);
    let pulled = 0;
    for (let a = stream.next(); a !== undefined && pulled < 50 * PRESET_MAX_ARRIVALS; a = stream.next(), pulled++) {
      let list = byKey.get(a.key);
      if (list === undefined) byKey.set(a.key, (list = []));
      list.push([a.t, a.cost]);
    }
    let key = '';
    let arrivals: [number, number][] = [];
    for (const [name, list] of byKey) if (list.length > arrivals.length) [key, arrivals] = [name, list];
    if (arrivals.length === 0) continue;
    const { limit, windowMs, burst } = scenario.policy;
    presets.push({
      name: scenario.name,
      description: scenario.description,
      policy: { limit, windowMs, ...(burst === undefined ? {} : { burst }) },
      key,
      arrivals: arrivals.slice(0, PRESET_MAX_ARRIVALS),
      truncated: arrivals.length > PRESET_MAX_ARRIVALS,
    });
  }
  return presets;
}

/**
 * The core as the page runs it: dist/browser/index.js (the one-module build of src/index.ts,
 * tsup.config.ts), its closing `export { ... }` turned into `globalThis.ratelab = { ... }`, so
 * an inline module script defines it for the page script after it. Throws `FILE_NOT_FOUND`
 * when the package was not built.
 */
export function browserCore(root = packageRoot(import.meta.url)): string {
  const path = join(root, 'dist', 'browser', 'index.js');
  if (!existsSync(path))
    throw new RatelabError('FILE_NOT_FOUND', `${path}: the browser core is missing (run npm run build)`, {
      field: 'dist/browser/index.js',
    });
  const source = readFileSync(path, 'utf8');
  const match = /\nexport\s*\{([^}]*)\};?\s*$/.exec(source);
  if (match === null) throw new Error(`${path}: no closing export list to turn into globalThis.ratelab`);
  const names = (match[1] as string)
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [local, exported = local] = entry.split(/\s+as\s+/);
      return `${JSON.stringify(exported)}: ${local}`;
    });
  return `${source.slice(0, match.index)}\nglobalThis.ratelab = Object.freeze({ ${names.join(', ')} });\n`;
}

let pageScript: string | undefined;

/**
 * The playground: one self-contained page holding uPlot, the core (the code `import
 * 'ratelab'` runs, see {@link browserCore}), the presets and the page script
 * (playground-page.browser.js), which runs the five limiters and the exact oracle in the
 * browser. No network resource.
 */
export function playgroundHtml(
  data: PlaygroundData = { algorithms: ALGORITHMS, presets: playgroundPresets() },
): string {
  pageScript ??= readFileSync(new URL('./playground-page.browser.js', import.meta.url), 'utf8');
  return selfContainedPage({
    title: 'ratelab playground',
    styles: PLAYGROUND_STYLES,
    id: 'playground',
    noscript: 'The playground runs the limiters in JavaScript: allow scripts for this file.',
    data,
    scripts: [
      { source: htmlAssets().pageKit },
      { source: browserCore(), module: true },
      { source: pageScript, module: true },
    ],
  });
}

/** The playground's styles: a column of panels at 390 px, controls beside the lanes from 1000 px. */
const PLAYGROUND_STYLES = `
:root { --fg: #1b1b1b; --muted: #5b5b5b; --line: #d7d7d7; --panel: #f7f7f7; --focus: #1f5fbf; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); margin: 0; background: #fff; }
main { max-width: 1280px; margin: 0 auto; padding: 8px 12px 40px; }
h1 { font-size: 20px; margin: 4px 0; } h2 { font-size: 15px; margin: 0 0 6px; } h3 { font-size: 14px; margin: 0; }
.muted { color: var(--muted); } .notice { background: #fff3cd; border: 1px solid #e0c060; padding: 4px 8px; margin: 4px 0; }
.layout { display: grid; grid-template-columns: 300px minmax(0, 1fr); gap: 12px; align-items: start; }
@media (max-width: 900px) { .layout { grid-template-columns: minmax(0, 1fr); } }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 8px; margin-bottom: 8px; }
.row { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; }
.row label { display: inline-flex; gap: 4px; align-items: center; }
input[type=number] { width: 72px; font: inherit; } select, button, input { font: inherit; }
button { padding: 3px 9px; border: 1px solid #888; border-radius: 3px; background: #fff; cursor: pointer; }
button:hover { background: #eef; } button[aria-pressed=true] { background: #dde6f7; border-color: var(--focus); }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 1px; }
.clock { font-variant-numeric: tabular-nums; font-size: 18px; font-weight: 600; }
.lane { border-top: 1px solid var(--line); padding: 6px 0; }
.lane-head { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; }
.lane-head .counts { font-variant-numeric: tabular-nums; color: var(--muted); }
canvas.strip { display: block; width: 100%; height: 26px; border: 1px solid var(--line); background: #fff; cursor: crosshair; }
.state { display: flex; flex-wrap: wrap; gap: 4px 16px; align-items: center; margin-top: 4px; font-variant-numeric: tabular-nums; }
.state svg { display: block; max-width: 100%; }
.legend-key { display: flex; flex-wrap: wrap; gap: 4px 14px; margin: 4px 0; font-size: 12px; }
.legend-key canvas { vertical-align: -3px; margin-right: 4px; border: 1px solid #444; }
.tip { position: fixed; z-index: 3; max-width: 340px; padding: 4px 8px; background: #fff; border: 1px solid #444; font-size: 12px; pointer-events: none; }
.decisions { border-collapse: collapse; font-size: 12px; font-variant-numeric: tabular-nums; }
.decisions th, .decisions td { border: 1px solid var(--line); padding: 1px 5px; text-align: right; white-space: nowrap; }
.decisions th:first-child, .decisions td:first-child { text-align: left; }
#lessons button { text-align: left; font-size: 13px; width: 100%; }
.lesson { border-left: 4px solid var(--focus); }
.lesson[data-complete=true] { border-left-color: #2e7d32; }
.answer { background: #e8f3e8; padding: 4px 6px; margin-top: 4px; }
.scroll { overflow-x: auto; }
.u-legend { font-size: 12px; }
kbd { border: 1px solid #999; border-radius: 3px; padding: 0 3px; font-size: 12px; background: #fff; }
`;
