// `ratelab playground`: the page written where asked (default ratelab-playground.html), or
// served on a loopback port until stopped. What the page does is test/report/playground-browser.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { DEFAULT_PLAYGROUND_FILE, playgroundCommand } from '../../src/cli/commands/playground.js';
import { browserCore, PRESET_MAX_ARRIVALS, playgroundPresets } from '../../src/report/html/playground-html.js';
import { bufferIO } from '../../src/report/io.js';

const dir = mkdtempSync(join(tmpdir(), 'ratelab-playground-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ratelab playground', () => {
  it('writes ratelab-playground.html by default: one page under 1 MB holding the core, the presets and no URL to fetch', async () => {
    const io = bufferIO({ cwd: dir });
    expect(await run(['playground'], io)).toBe(0);
    const page = readFileSync(join(dir, DEFAULT_PLAYGROUND_FILE), 'utf8');
    expect(page.length).toBeLessThan(1_000_000);
    expect(io.err()).toMatch(/^ratelab playground: wrote ratelab-playground\.html \(\d+ KB\): open it in a browser\n$/);
    expect(page).toContain('globalThis.ratelab = Object.freeze({');
    expect(page).toContain('"name":"edge-attack"');
    // No element loads anything: no src= or href= at all, no @import or url( in the styles.
    expect(page).not.toMatch(/\s(src|href)\s*=/i);
    // why: the styles only; the core's own code says `new URL(` (the adaptive client's per-host key), which loads nothing.
    const styles = [...page.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]).join('\n');
    expect(styles.length).toBeGreaterThan(0);
    expect(styles).not.toMatch(/@import|url\(/i);
  });

  it('writes the page to stdout with --html -', async () => {
    const io = bufferIO({ cwd: dir });
    expect(await run(['playground', '--html', '-'], io)).toBe(0);
    expect(io.out()).toMatch(/^<!doctype html>/);
    expect(io.err()).toBe('');
  });

  it('inlines the one-module core build, exporting what import("ratelab") exports', async () => {
    const core = browserCore();
    const names = /globalThis\.ratelab = Object\.freeze\(\{ (.*) \}\);\n$/.exec(core)?.[1] ?? '';
    const exported = names.split(', ').map((entry) => JSON.parse(entry.split(':')[0] as string) as string);
    const library = Object.keys(await import('../../dist/lib/index.js'));
    expect(exported.sort()).toEqual(library.sort());
    expect(core).not.toMatch(/\bfrom\s*["']|\bimport\s*\(/);
  });

  it("turns each single-policy built-in scenario into a preset: its busiest key's arrivals", () => {
    const presets = playgroundPresets();
    const edge = presets.find((p) => p.name === 'edge-attack');
    expect(edge?.policy).toEqual({ limit: 100, windowMs: 1000 });
    expect(edge?.key).toBe('attacker');
    expect(edge?.arrivals.slice(99, 101)).toEqual([
      [999, 1],
      [1000, 1],
    ]);
    for (const preset of presets) expect(preset.arrivals.length).toBeLessThanOrEqual(PRESET_MAX_ARRIVALS);
    expect(presets.map((p) => p.name)).not.toContain('composite-burst-and-hour');
  });

  it('serves the page on 127.0.0.1 with --serve, prints the URL, and stops on the signal', async () => {
    const controller = new AbortController();
    let onListening!: (url: string) => void;
    const listening = new Promise<string>((resolve) => (onListening = resolve));
    const io = bufferIO({ cwd: dir });
    const exit = playgroundCommand({ serve: true, signal: controller.signal, onListening }, io);
    const url = await listening;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    expect(io.out()).toBe(`${url}\n`);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await response.text()).toMatch(/^<!doctype html>/);
    expect((await fetch(`${url}other`)).status).toBe(404);
    controller.abort();
    expect(await exit).toBe(0);
    expect(existsSync(join(dir, 'never-written.html'))).toBe(false);
  });

  it('refuses --port without --serve: exit 2, one line naming the flag', async () => {
    const io = bufferIO({ cwd: dir });
    expect(await run(['playground', '--port', '8080'], io)).toBe(2);
    expect(io.err()).toMatch(/^ratelab: --port: only with --serve\n$/);
  });
});
