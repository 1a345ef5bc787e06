import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { auditCommand } from '../../src/cli/commands/audit.js';
import { run } from '../../src/cli/main.js';
import { ManualClock } from '../../src/index.js';
import { bufferIO } from '../../src/report/io.js';
import { SAMPLE_REPORT } from '../audit/sample-report.js';
import { listen } from '../http/support.js';
import { startServe } from './run-serve.js';

// `attack` and `audit --metrics-url`: the server's own counts (ratelab serve --metrics) read
// before and after the run, beside what the client saw; an unusable URL is exit 3, one line.

const TRACE = fileURLToPath(new URL('../fixtures/traces/phase-bursts.csv', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'ratelab-metrics-url-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** `ratelab serve --metrics`: fixed-window 5 per hour on a clock that never moves (one window). */
async function serveWithMetrics(): Promise<{ url: string; metricsUrl: string }> {
  const serve = await startServe({
    algorithm: 'fixed-window',
    limit: 5,
    window: '1h',
    metrics: true,
    quiet: true,
    clock: new ManualClock(0),
  });
  stops.push(serve.stop);
  return { url: serve.url, metricsUrl: serve.metricsUrl as string };
}

/** A stand-in /metrics answering each read with the next of `answers` (the last one repeated). */
async function metricsStub(answers: { status: number; body: string }[]): Promise<{ url: string; reads: () => number }> {
  let reads = 0;
  const server = await listen((_req: IncomingMessage, res: ServerResponse) => {
    const answer = answers[Math.min(reads, answers.length - 1)]!;
    reads += 1;
    res.writeHead(answer.status, { 'Content-Type': 'text/plain; version=0.0.4' });
    res.end(answer.body);
  });
  stops.push(server.close);
  return { url: `${server.url}/metrics`, reads: () => reads };
}

const decisions = (allowed: number, denied: number) =>
  [
    '# TYPE ratelab_decisions_total counter',
    `ratelab_decisions_total{limiter="api",tier="free",outcome="allowed"} ${allowed}`,
    `ratelab_decisions_total{limiter="api",tier="free",outcome="denied"} ${denied}`,
    // why: counts are summed over every limiter and tier of the series.
    `ratelab_decisions_total{limiter="api",tier="pro",outcome="allowed"} 1`,
    '',
  ].join('\n');

const ATTACK = (url: string) => [
  'attack',
  url,
  '--trace',
  TRACE,
  '--limit',
  '5',
  '--window',
  '1h',
  '--no-probe',
  '--no-chart',
];

describe('ratelab attack --metrics-url', () => {
  it("shows the server's counts during the run per outcome beside the client's 2xx and 429", async () => {
    const serve = await serveWithMetrics();
    // why: decisions made before the run are not the run's: the counts are after minus before.
    await fetch(`${serve.url}/`);
    const io = bufferIO({ cwd: scratch });
    expect(await run([...ATTACK(serve.url), '--metrics-url', serve.metricsUrl], io)).toBe(0);
    expect(io.out()).toContain(
      [
        `server's own counts (${serve.metricsUrl}), during the run, beside the client's:`,
        '  allowed        4  (client: 4 2xx)',
        '  denied         6  (client: 6 429)',
        '  shadow-denied  0',
        '  failed-open    0',
        '  failed-closed  0',
        '  total         10  (client: 10 requests sent)',
        '',
      ].join('\n'),
    );
  });

  it('goes to stderr when the report owns stdout (--json -), and the JSON carries the same counts', async () => {
    const serve = await serveWithMetrics();
    const io = bufferIO({ cwd: scratch });
    expect(await run([...ATTACK(serve.url), '--json', '-', '--metrics-url', serve.metricsUrl], io)).toBe(0);
    expect(io.err()).toContain('  denied         5  (client: 5 429)');
    const json = JSON.parse(io.out()) as { attack: { serverCounts: unknown } };
    expect(json.attack.serverCounts).toEqual({
      url: serve.metricsUrl,
      during: { allowed: 5, denied: 5, 'shadow-denied': 0, 'failed-open': 0, 'failed-closed': 0 },
      client: { requests: 10, admitted: 5, denied: 5 },
    });
  });

  it.each([
    ['unreachable', async () => 'http://127.0.0.1:1/metrics', 'cannot read http://127.0.0.1:1/metrics: ECONNREFUSED'],
    [
      'not the Prometheus text format',
      async () => (await metricsStub([{ status: 200, body: '{"ok":true}' }])).url,
      'not the Prometheus text format (line 1: not a sample: "{\\"ok\\":true}")',
    ],
    [
      'an exporter without the series',
      async () => (await metricsStub([{ status: 200, body: 'up 1\n' }])).url,
      'no ratelab_decisions_total series (is it ratelab serve --metrics?)',
    ],
    ['an error status', async () => (await metricsStub([{ status: 404, body: 'no' }])).url, 'answered 404, not 200'],
  ])('refuses a URL that is %s before sending anything: exit 3, one line', async (_, urlOf, why) => {
    const serve = await serveWithMetrics();
    const metricsUrl = await urlOf();
    const io = bufferIO({ cwd: scratch });
    expect(await run([...ATTACK(serve.url), '--metrics-url', metricsUrl], io)).toBe(3);
    expect(io.err()).toMatch(new RegExp(`^ratelab: --metrics-url: .*\\n$`));
    expect(io.err()).toContain(why);
    expect(io.out()).toBe('');
    // why: nothing was sent: the server decided nothing.
    const after = await (await fetch(serve.metricsUrl)).text();
    expect(after).not.toMatch(/outcome="allowed"} [1-9]/);
  });

  it('refuses a remote --metrics-url without --allow-remote: exit 2', async () => {
    const io = bufferIO({ cwd: scratch });
    expect(await run([...ATTACK('http://127.0.0.1:1/'), '--metrics-url', 'http://192.0.2.1/metrics'], io)).toBe(2);
    expect(io.err()).toBe(
      'ratelab: --metrics-url: 192.0.2.1 is not a loopback address; pass --allow-remote to use a host that is not this machine on purpose\n',
    );
  });

  it('keeps the report already written when the second read fails: the files are there, then exit 3', async () => {
    const serve = await serveWithMetrics();
    const stub = await metricsStub([
      { status: 200, body: decisions(0, 0) },
      { status: 500, body: 'broken' },
    ]);
    const json = join(scratch, 'kept.json');
    const io = bufferIO({ cwd: scratch });
    expect(await run([...ATTACK(serve.url), '--json', json, '--metrics-url', stub.url], io)).toBe(3);
    expect(stub.reads()).toBe(2);
    expect(existsSync(json)).toBe(true);
    expect(JSON.parse(readFileSync(json, 'utf8')).rows[0].admitted).toBe(5);
    expect(io.out()).toContain('127.0.0.1');
    expect(io.err().trimEnd().split('\n').at(-1)).toBe(
      `ratelab: --metrics-url: cannot read ${stub.url}: answered 500, not 200`,
    );
  });
});

describe('ratelab audit --metrics-url', () => {
  it("shows the server's counts during the audit beside the 2xx and 429 of the audit's requests", async () => {
    const stub = await metricsStub([
      { status: 200, body: decisions(3, 2) },
      { status: 200, body: decisions(103, 52) },
    ]);
    const io = bufferIO({ cwd: scratch });
    const code = await auditCommand(
      { url: 'http://127.0.0.1:8080/', metricsUrl: stub.url, audit: async () => SAMPLE_REPORT },
      io,
    );
    expect(code).toBe(0);
    const shots = SAMPLE_REPORT.timelines.flatMap((timeline) => timeline.shots);
    const ok = shots.filter((shot) => shot.status !== null && shot.status >= 200 && shot.status < 300).length;
    const denied = shots.filter((shot) => shot.status === 429).length;
    expect(io.out()).toContain(
      [
        `server's own counts (${stub.url}), during the run, beside the client's:`,
        `  allowed${' '.repeat(7)}100  (client: ${ok} 2xx)`,
        `  denied${' '.repeat(9)}50  (client: ${denied} 429)`,
        `  shadow-denied${' '.repeat(3)}0`,
        `  failed-open${' '.repeat(5)}0`,
        `  failed-closed${' '.repeat(3)}0`,
        `  total${' '.repeat(9)}150  (client: ${SAMPLE_REPORT.requests} requests sent)`,
      ].join('\n'),
    );
  });
});
