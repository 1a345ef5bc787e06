import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { attackCommand, type AttackOptions } from '../../src/cli/commands/attack.js';
import { bufferIO } from '../../src/report/io.js';
import { listen } from '../http/support.js';

// Issue 11 item 4: `attack` is bounded by its own limits against an endpoint that drips its
// body. The wall-time bounds asserted are generous (the defect was an unbounded run).
const BIN = fileURLToPath(new URL('../../bin/ratelab.js', import.meta.url));

const dir = mkdtempSync(join(tmpdir(), 'ratelab-attack-bounds-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A trace of `count` requests of one key, `gapMs` apart. */
function trace(name: string, count: number, gapMs: number): string {
  const file = join(dir, name);
  writeFileSync(file, `time_ms,key\n${Array.from({ length: count }, (_, i) => `${i * gapMs},k`).join('\n')}\n`);
  return file;
}

/**
 * An endpoint that sends its status and headers at once, then its body one byte every
 * `dripMs`, never ending; `requests()` counts the requests it got.
 */
async function withDripper<T>(dripMs: number, body: (url: string, requests: () => number) => Promise<T>): Promise<T> {
  let requests = 0;
  const server = await listen((_req, res) => {
    requests += 1;
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    res.write('x');
    const drip = setInterval(() => res.write('x'), dripMs);
    res.on('close', () => clearInterval(drip));
  });
  try {
    return await body(server.url, () => requests);
  } finally {
    await server.close();
  }
}

interface Report {
  stoppedBy: string;
  responses: { sent: number; admitted: number; errors: number; errorCodes: Record<string, number>; aborted: number };
}

async function attack(options: AttackOptions): Promise<{ code: number; report: Report; err: string; wallMs: number }> {
  const io = bufferIO();
  const started = performance.now();
  const code = await attackCommand({ limit: '100', window: '1s', probe: false, json: '-', ...options }, io);
  const wallMs = performance.now() - started;
  return { code, report: JSON.parse(io.out()).attack as Report, err: io.err(), wallMs };
}

describe('ratelab attack against an endpoint that drips its body', () => {
  it.concurrent.each([
    { dripMs: 500, timeout: '300ms', note: 'a byte every 500 ms, --timeout 300ms' },
    { dripMs: 100, timeout: '1s', note: 'a byte every 100 ms (never idle), --timeout 1s' },
  ])(
    '$note: --timeout covers the body, every request times out, the report is printed',
    async ({ dripMs, timeout }) => {
      const { code, report, wallMs } = await withDripper(dripMs, (url) =>
        attack({ url, trace: trace(`six-${dripMs}.csv`, 6, 100), timeout, maxTime: '2s' }),
      );
      expect(code).toBe(0);
      expect(report.stoppedBy).toBe('done');
      expect(report.responses).toEqual({
        sent: 6,
        admitted: 0,
        limited: 0,
        other: 0,
        errors: 6,
        errorCodes: { timeout: 6 },
        aborted: 0,
      });
      expect(wallMs).toBeLessThan(10_000);
    },
    30_000,
  );

  it('--max-time aborts the requests in flight and still reports what was measured', async () => {
    const { code, report, err, wallMs } = await withDripper(100, (url) =>
      attack({ url, trace: trace('three.csv', 3, 100), timeout: '1m', maxTime: '1s' }),
    );
    expect(code).toBe(0);
    expect(report.stoppedBy).toBe('max-time');
    // Aborted by the run's own stop: not the endpoint's errors.
    expect(report.responses).toMatchObject({ sent: 3, errors: 0, aborted: 3 });
    expect(err).toMatch(/stopped at --max-time 1s; 0 events not sent; 3 in flight aborted/);
    expect(wallMs).toBeLessThan(10_000);
  }, 30_000);

  it('--max-time stops a closed-loop run waiting on its one request', async () => {
    const io = bufferIO();
    const code = await withDripper(100, (url) =>
      attackCommand(
        {
          url,
          scenario: 'retry-storm',
          limit: '100',
          window: '1s',
          probe: false,
          json: '-',
          timeout: '1m',
          maxTime: '1s',
        },
        io,
      ),
    );
    expect(code).toBe(0);
    const report = JSON.parse(io.out()).attack as Report;
    expect(report.stoppedBy).toBe('max-time');
    expect(report.responses.aborted).toBeGreaterThan(0);
  }, 30_000);
});

describe('ratelab attack as a process, stopped by a signal', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s ends it promptly with the partial report on stdout, exit %i',
    async (signal, exitCode) => {
      await withDripper(100, async (url, requests) => {
        const file = trace(`long-${signal}.csv`, 50, 200);
        const child = spawn(
          process.execPath,
          [
            BIN,
            'attack',
            url,
            '--trace',
            file,
            '--limit',
            '100',
            '--window',
            '1s',
            '--timeout',
            '1m',
            '--max-time',
            '1m',
            '--json',
            '-',
          ],
          {
            stdio: ['ignore', 'pipe', 'pipe'],
          },
        );
        const output = { stdout: '', stderr: '' };
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
        const exited = once(child, 'exit');
        while (requests() < 2) await new Promise((resolve) => setTimeout(resolve, 20));
        child.kill(signal);
        const [code, bySignal] = await exited;
        expect([code, bySignal]).toEqual([exitCode, null]);
        const report = JSON.parse(output.stdout).attack as Report;
        expect(report.stoppedBy).toBe('interrupted');
        expect(report.responses.sent).toBeGreaterThanOrEqual(2);
        expect(report.responses.aborted).toBe(report.responses.sent);
        expect(output.stderr).toMatch(
          /ratelab attack: interrupted: the report covers the \d+ requests sent so far; \d+ in flight aborted\n/,
        );
      });
    },
    30_000,
  );
});
