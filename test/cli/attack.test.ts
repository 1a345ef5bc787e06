import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { attackCommand, type AttackOptions } from '../../src/cli/commands/attack.js';
import type { ServeOptions } from '../../src/cli/commands/serve.js';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';
import { ALGORITHMS, type Algorithm } from '../../src/index.js';
import type { AttackAnalysis, LimitWorstWindow } from '../../src/attack/analysis.js';
import type { ComparisonRow } from '../../src/sim/comparison.js';
import { CSV_COLUMNS } from '../../src/report/data/compare-csv.js';
import { listen } from '../http/support.js';
import { startServe } from './run-serve.js';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

/** `ratelab serve` on a free port for the duration of `body`. */
async function withServe<T>(options: ServeOptions, body: (url: string) => Promise<T>): Promise<T> {
  const serve = await startServe({ quiet: true, ...options });
  try {
    return await body(serve.url);
  } finally {
    await serve.stop();
  }
}

type AttackResult = {
  code: number;
  report: Omit<AttackAnalysis, 'metrics'> & {
    metrics: ComparisonRow;
    stoppedBy: string;
    unsent: number;
    maxLagMs: number;
  };
  err: string;
};

/** Runs `ratelab attack --json -` and returns its exit code, report (when written) and messages. */
async function attack(options: AttackOptions, io = bufferIO()): Promise<AttackResult> {
  const code = await attackCommand({ json: '-', ...options }, io);
  const json = io.out() === '' ? undefined : JSON.parse(io.out());
  return {
    code,
    report: json && {
      ...json.attack,
      metrics: json.rows[0],
      policy: { ...json.scenarios[0].policy, source: json.attack.policySource },
    },
    err: io.err(),
  };
}

/** The edge fixture keeps 450 ms (wall) between its first burst and the window edge. */
const EDGE_MARGIN_MS = 450;

/**
 * The edge attack against a fresh `ratelab serve`. Its premise is that each request reaches
 * the server near its scheduled time; a machine too busy to keep within the fixture's margin
 * (request lag plus latency, as the run itself reports) voids the run, so it is run again
 * (at most 3 times). Not a speed assertion: the figures asserted are counts.
 */
async function edgeAttack(algorithm: Algorithm): Promise<AttackResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await withServe({ algorithm, limit: 5, window: '1s' }, (url) =>
      attack({ url, scenario: fixture('http-edge.yaml'), speed: 10, align: '1s' }),
    );
    const late = result.report === undefined ? 0 : result.report.maxLagMs + (result.report.latencyMs?.max ?? 0);
    if (late < EDGE_MARGIN_MS || attempt === 3) return result;
  }
}

/** 40 ms lie between the trace's first burst and the window edge at 2,000 ms. */
const PHASE_MARGIN_MS = 40;

/**
 * The phase-shifted trace against a fixed window of 5 per 1 s, aligned to 1 s. A run in
 * which a request of the first burst may have reached the server after the edge (request
 * lag plus latency over the margin, as the run itself reports) is void and run again (at
 * most 3 times); the figures asserted are counts.
 */
async function phaseAttack(): Promise<AttackResult> {
  for (let attempt = 1; ; attempt++) {
    const result = await withServe({ algorithm: 'fixed-window', limit: 5, window: '1s' }, (url) =>
      attack({ url, trace: fixture('traces/phase-bursts.csv'), align: '1s' }),
    );
    const late = result.report === undefined ? 0 : result.report.maxLagMs + (result.report.latencyMs?.max ?? 0);
    if (late < PHASE_MARGIN_MS || attempt === 3) return result;
  }
}

describe('ratelab attack against ratelab serve', () => {
  // At 10x the scenario's 10 s window is serve's 1 s; --align 1s puts the scenario's 10 s mark on a window edge.
  it.concurrent.each(ALGORITHMS)('%s: what the endpoint enforced, seen from outside', async (algorithm) => {
    const { code, report } = await edgeAttack(algorithm);
    expect(code).toBe(0);
    const { metrics, responses, probes, headerProblems, policy } = report;
    expect(policy).toEqual({
      limit: 5,
      windowMs: 1000,
      source: { limit: 'RateLimit-Policy', window: 'RateLimit-Policy' },
    });
    expect(responses.errors + responses.other).toBe(0);
    // The scenario's 10 requests, whatever the probes: they are counted apart.
    expect([responses.sent, metrics.offered]).toEqual([10, 10]);
    expect(responses.admitted + responses.limited).toBe(responses.sent);
    expect(headerProblems.count).toBe(0);
    expect(probes.dishonest).toBe(0);
    expect(probes.honest).toBe(probes.sent);
    if (algorithm === 'fixed-window') {
      // The edge burst: both quotas admitted within 550 ms.
      expect(metrics.admitted).toBe(10);
      expect(metrics.worstWindowRatio).toBeGreaterThanOrEqual(1.8);
      expect(metrics.falseAdmits).toBeGreaterThanOrEqual(4);
      expect(probes.sent).toBe(0);
    } else {
      // The buckets refill for ~0.55 s between the bursts (2 or 3 more units); never the edge's 2x.
      expect(metrics.worstWindowRatio).toBeLessThan(1.8);
      expect(probes.sent).toBe(1);
    }
    if (algorithm === 'sliding-log' || algorithm === 'sliding-counter') {
      expect(metrics.admitted).toBe(5);
      expect(metrics.worstWindowRatio).toBe(1);
    }
    if (algorithm === 'sliding-log') expect(metrics.falseAdmits).toBe(0);
  });

  it.concurrent.each([
    {
      algorithm: 'fixed-window',
      flags: { maxWorstWindow: '1.5' },
      code: 1,
      broken:
        /^ratelab: gate: http-edge \/ 127\.0\.0\.1:\d+: worst window \d\.\d\dx the limit, above --max-worst-window 1\.5$/m,
    },
    {
      algorithm: 'fixed-window',
      flags: { maxError: '10' },
      code: 1,
      broken: /^ratelab: gate: http-edge \/ 127\.0\.0\.1:\d+: error \d+\.\d\d% of requests, above --max-error 10%$/m,
    },
    { algorithm: 'fixed-window', flags: { maxWorstWindow: '2.0', maxError: '100' }, code: 0, broken: undefined },
    { algorithm: 'sliding-log', flags: { maxWorstWindow: '1.5', maxError: '10' }, code: 0, broken: undefined },
  ] as const)(
    'gates on what $algorithm really did: $flags -> exit $code',
    async ({ algorithm, flags, code, broken }) => {
      const result = await withServe({ algorithm, limit: 5, window: '1s' }, (url) =>
        attack({ url, scenario: fixture('http-edge.yaml'), speed: 10, align: '1s', probe: false, ...flags }),
      );
      expect(result.code).toBe(code);
      // The report is written in full before the verdict.
      expect(result.report.metrics.offered).toBe(10);
      if (broken) expect(result.err).toMatch(broken);
      else expect(result.err).not.toMatch(/above --max/);
    },
  );

  it("against a tiers file of two limits on one key: reports each limit's worst window, each within its limit", async () => {
    // Bursts of 8 every 1.4 s against 5 per 1 s and 10 per 3 s (sliding logs, exact): the bursts
    // at 0 and 1.4 s fill the 3 s limit, the one at 2.8 s is denied by it, those at 4.2 and 5.6 s pass 5 each.
    const dir = mkdtempSync(join(tmpdir(), 'ratelab-limits-'));
    try {
      const io = bufferIO();
      const json = join(dir, 'attack.json');
      const code = await withServe({ tiers: fixture('tiers/two-limits.yaml'), trustApiKeys: true }, (url) =>
        attackCommand({ url, scenario: fixture('http-bursts.yaml'), probe: false, json }, io),
      );
      expect(code).toBe(0);
      const { attack: report, rows } = JSON.parse(readFileSync(json, 'utf8'));
      expect(report.policySource).toEqual({ limit: 'RateLimit-Policy', window: 'RateLimit-Policy' });
      expect([rows[0].offered, rows[0].admitted, report.headerProblems.count]).toEqual([40, 20, 0]);
      // why: judged by both limits at once, the 3 s limit's denials at 2.8 s are right (by 5/1s alone, 5 false denials)
      expect([rows[0].falseAdmits, rows[0].falseDenials]).toEqual([0, 0]);
      expect(
        report.limits.map((l: LimitWorstWindow) => [
          l.name,
          l.limit,
          l.windowMs,
          l.worstWindowRatio,
          l.worstWindow?.units,
        ]),
      ).toEqual([
        ['burst', 5, 1000, 1, 5],
        ['3s', 10, 3000, 1, 10],
      ]);
      expect(io.out().replace(/\s+/g, ' ')).toContain(
        'note: worst window per limit: "burst" 1.00x (5 of 5 in 1s), "3s" 1.00x (10 of 10 in 3s)',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("--align keeps a trace's phase: bursts at 1,880-1,960 ms and 2,010-2,090 ms both pass a 1 s fixed window", async () => {
    const { code, report } = await phaseAttack();
    expect(code).toBe(0);
    expect(report.policy).toEqual({
      limit: 5,
      windowMs: 1000,
      source: { limit: 'RateLimit-Policy', window: 'RateLimit-Policy' },
    });
    // Every line of the trace offered once; both bursts admitted, 10 within 210 ms: twice the limit.
    expect([report.metrics.offered, report.metrics.admitted, report.metrics.denied]).toEqual([10, 10, 0]);
    expect(report.metrics.worstWindowRatio).toBe(2);
    expect(report.probes.sent).toBe(0);
  });

  it('catches a Retry-After that comes too early', async () => {
    // A fixed window of 1 per 2 s that always says "retry in 1 s".
    let windowStart = -1;
    const liar = await listen((_req, res) => {
      const window = Math.floor(Date.now() / 2000);
      const admitted = window !== windowStart;
      windowStart = window;
      res.statusCode = admitted ? 200 : 429;
      if (!admitted) res.setHeader('Retry-After', '1');
      res.end();
    });
    try {
      const { code, report } = await attack({
        url: liar.url,
        scenario: fixture('http-liar.yaml'),
        align: '2s',
        limit: '1',
        window: '2s',
      });
      expect(code).toBe(0);
      expect(report.responses).toMatchObject({ sent: 2, admitted: 1, limited: 1 });
      expect(report.probes).toEqual({ sent: 1, honest: 0, dishonest: 1, contended: 0, undecided: 0 });
    } finally {
      await liar.close();
    }
  });

  describe('the policy to judge by, read from the responses', () => {
    /** A server that admits everything, with these fields; counts the requests it got. */
    async function withFields<T>(
      fields: Record<string, string>,
      body: (url: string, received: () => number) => Promise<T>,
    ): Promise<T> {
      let received = 0;
      const server = await listen((_req, res) => {
        received += 1;
        for (const [name, value] of Object.entries(fields)) res.setHeader(name, value);
        res.end('ok');
      });
      try {
        return await body(server.url, () => received);
      } finally {
        await server.close();
      }
    }

    /** 20 requests of one key, 100 ms apart: 1.9 s of replay, long enough to be stopped early. */
    const dir = mkdtempSync(join(tmpdir(), 'ratelab-policy-'));
    const trace = join(dir, 'slow.csv');
    writeFileSync(trace, `time_ms,key\n${Array.from({ length: 20 }, (_, i) => `${i * 100},k`).join('\n')}\n`);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.concurrent.each<{ fields: Record<string, string>; flags: Partial<AttackOptions>; policy: object; note: string }>(
      [
        {
          fields: { 'RateLimit-Policy': '"api";q=30;w=60' },
          flags: {},
          policy: { limit: 30, windowMs: 60_000, source: { limit: 'RateLimit-Policy', window: 'RateLimit-Policy' } },
          note: 'policy: 30 per 1m, read from RateLimit-Policy',
        },
        {
          fields: { 'X-RateLimit-Limit': '3' },
          flags: { window: '1s' },
          policy: { limit: 3, windowMs: 1000, source: { limit: 'X-RateLimit-Limit', window: '--window' } },
          note: 'policy: 3 per 1s, limit read from X-RateLimit-Limit, window from --window',
        },
        {
          fields: { 'X-RateLimit-Limit': '3' },
          flags: { limit: '4', window: '2s' },
          policy: { limit: 4, windowMs: 2000, source: { limit: '--limit', window: '--window' } },
          note: 'policy: 4 per 2s, from --limit/--window',
        },
      ],
    )('$note', async ({ fields, flags, policy, note }) => {
      const io = bufferIO();
      const { code, report } = await withFields(fields, (url) =>
        attack({ url, trace, duration: '250ms', ...flags }, io),
      );
      expect(code).toBe(0);
      expect(report.policy).toEqual(policy);
      expect(report.metrics.offered).toBe(3);
      const json = JSON.parse(io.out());
      expect(json.scenarios[0].notes).toContain(`${note}; judged in wall-clock time`);
    });

    it.concurrent.each<{ fields: Record<string, string>; flags: Record<string, string>; message: RegExp }>([
      {
        fields: {},
        flags: {},
        message:
          /^ratelab: --limit: no policy to judge by: the endpoint sends neither RateLimit-Policy nor X-RateLimit-Limit: pass --limit N --window D$/,
      },
      {
        fields: { 'X-RateLimit-Limit': '3' },
        flags: {},
        message:
          /^ratelab: --window: no policy to judge by: the endpoint's X-RateLimit-Limit 3 carries no window: pass --window D \(and --limit N to override the limit\)$/,
      },
      {
        fields: { 'RateLimit-Policy': '"fast";q=3' },
        flags: {},
        message:
          /^ratelab: --window: no policy to judge by: the endpoint's RateLimit-Policy .* has no window \(w\): pass --window D/,
      },
      {
        fields: {},
        flags: { window: '1s' },
        message:
          /^ratelab: --limit: no policy to judge by: the endpoint sends neither RateLimit-Policy nor X-RateLimit-Limit/,
      },
    ])('a trace and $fields with $flags: exit 2, stopped at the first response', async ({ fields, flags, message }) => {
      const io = bufferIO();
      const [code, received] = await withFields(fields, async (url, received): Promise<[number, number]> => [
        await run(
          ['attack', url, '--trace', trace, ...Object.entries(flags).flatMap(([flag, value]) => [`--${flag}`, value])],
          io,
        ),
        received(),
      ]);
      expect(code).toBe(2);
      expect(io.err().trim().split('\n').at(-1)).toMatch(message);
      expect(io.out()).toBe('');
      // Stopped once the first response showed no policy, not after the trace's 20 requests.
      expect(received).toBeLessThan(20);
    });

    it("falls back on a scenario's own policy when the endpoint sends none", async () => {
      const { code, report } = await withFields({}, (url) =>
        attack({ url, scenario: fixture('http-liar.yaml'), speed: 2, probe: false }),
      );
      expect(code).toBe(0);
      expect(report.policy).toEqual({ limit: 1, windowMs: 1000, source: { limit: 'scenario', window: 'scenario' } });
    });
  });

  describe('keys a header value cannot carry unchanged', () => {
    /** A server that counts the requests it gets and the X-API-Key of each. */
    async function withCounter<T>(body: (url: string, keys: string[]) => Promise<T>): Promise<T> {
      const keys: string[] = [];
      const server = await listen((req, res) => {
        keys.push(String(req.headers['x-api-key']));
        res.setHeader('RateLimit-Policy', '"api";q=5;w=1');
        res.end('ok');
      });
      try {
        return await body(server.url, keys);
      } finally {
        await server.close();
      }
    }

    const dir = mkdtempSync(join(tmpdir(), 'ratelab-keys-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it.concurrent.each([
      { key: '用户', why: 'non-ASCII text', shown: '"用户"' },
      { key: '\u{1F600}', why: 'an emoji', shown: '"\u{1F600}"' },
      { key: 'a\u2028b', why: 'a line separator', shown: '"a\u2028b"' },
      { key: 'caf\u00e9', why: 'Latin-1, which Node would send as one byte, not UTF-8', shown: '"caf\u00e9"' },
      { key: 'a\tb', why: 'a tab', shown: '"a\\tb"' },
    ])(
      'a trace key with $why: exit 2 naming the line, the key and --key-header, nothing sent',
      async ({ key, shown }) => {
        const trace = join(dir, `${Buffer.from(key).toString('hex')}.csv`);
        // The bad key comes after good lines: still nothing is sent.
        writeFileSync(trace, `time_ms,key\n0,ok\n10,ok\n20,${key}\n30,ok\n`);
        const io = bufferIO();
        const [code, received] = await withCounter(async (url, keys) => [
          await run(['attack', url, '--trace', trace, '--limit', '5', '--window', '1s'], io),
          keys.length,
        ]);
        expect(code).toBe(2);
        expect(received).toBe(0);
        expect(io.out()).toBe('');
        const lines = io.err().trim().split('\n');
        expect(lines.at(-1)).toContain(
          `${trace}:4: key ${shown} cannot be sent unchanged in the --key-header X-API-Key`,
        );
        expect(io.err()).not.toMatch(/internal error|\n\s+at /);
      },
    );

    it('--skip-bad-lines skips such keys (counted) and sends the rest', async () => {
      const trace = join(dir, 'skip.csv');
      writeFileSync(trace, 'time_ms,key\n0,ok\n10,用户\n20,ok\n');
      const io = bufferIO();
      const [code, keys] = await withCounter(async (url, keys) => [
        await attackCommand({ url, trace, limit: '5', window: '1s', skipBadLines: true, json: '-' }, io),
        keys,
      ]);
      expect(code).toBe(0);
      expect(keys).toEqual(['ok', 'ok']);
      expect(JSON.parse(io.out()).scenarios[0].notes.join('\n')).toMatch(
        /skipped 1 bad line .*:3: key "用户" cannot be sent unchanged/,
      );
    });

    it('a scenario whose key cannot be a header value: exit 2 naming the source, nothing sent', async () => {
      const scenario = join(dir, 'unicode.yaml');
      writeFileSync(
        scenario,
        'name: unicode\ndescription: a key in Chinese\npolicy: { limit: 1, window: 1s }\nduration: 200ms\nseed: 1\nsources:\n  - kind: burst\n    keys: 用户\n    at: 0\n    count: 2\n',
      );
      const io = bufferIO();
      const [code, received] = await withCounter(async (url, keys) => [
        await run(['attack', url, scenario], io),
        keys.length,
      ]);
      expect(code).toBe(2);
      expect(received).toBe(0);
      expect(io.err().trim().split('\n').at(-1)).toMatch(
        /sources\[0\]\.keys: key "用户" cannot be sent unchanged in the --key-header X-API-Key/,
      );
    });

    it('a key with a header-unsafe character refused by runAttack itself, before its request', async () => {
      const { runAttack } = await import('../../src/attack/runner.js');
      const events = [
        { t: 0, key: 'ok' },
        { t: 1, key: '用户' },
      ];
      await withCounter(async (url, keys) => {
        const stream = { next: () => events.shift() };
        await expect(
          runAttack({
            url: new URL(url),
            stream,
            speed: 1,
            durationMs: Infinity,
            keyHeader: 'X-API-Key',
            connections: 1,
            maxRequests: 10,
            maxTimeMs: 5000,
            timeoutMs: 1000,
          }),
        ).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
        expect(keys.length).toBeLessThanOrEqual(1);
      });
    });
  });

  it('shows progress on a terminal only: requests sent of those planned, and the time', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratelab-progress-'));
    // Five requests over 2 s: the replay lasts at least that, past the first second of quiet.
    writeFileSync(join(dir, 'spread.csv'), 'time_ms,key\n0,a\n500,a\n1000,a\n1500,a\n2000,a\n');
    try {
      const [terminal, pipe] = await withServe({ algorithm: 'sliding-log', limit: 100, window: '1s' }, async (url) => {
        const tty = bufferIO({ cwd: dir, tty: true, env: { NO_COLOR: '1' } });
        const piped = bufferIO({ cwd: dir });
        expect(await attackCommand({ url, trace: 'spread.csv', chart: false }, tty)).toBe(0);
        expect(await attackCommand({ url, trace: 'spread.csv', chart: false }, piped)).toBe(0);
        return [tty.err(), piped.err()];
      });
      expect(terminal).toMatch(/\r\u001b\[Kratelab attack: [1-5]\/5 requests sent, \d+\.\d s/);
      // Cleared before the report's messages.
      expect(terminal).toMatch(/requests sent, \d+\.\d s\r\u001b\[K/);
      expect(pipe).not.toContain('\r');
      expect(pipe).not.toMatch(/requests sent,/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("replays a trace from its first event's time, and writes compare's CSV", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratelab-attack-'));
    // Epoch-stamped times: the replay starts at the first one, not at 0.
    writeFileSync(
      join(dir, 'trace.csv'),
      'time_ms,key\n1700000000000,a\n1700000000050,a\n1700000000100,a\n1700000000150,b\n',
    );
    try {
      const io = bufferIO({ cwd: dir });
      // Two keys, one per client: serve must take every X-API-Key as a client of its own.
      const code = await withServe({ algorithm: 'sliding-log', limit: 2, window: '1m', trustApiKeys: true }, (url) =>
        attackCommand({ url, trace: 'trace.csv', limit: '2', window: '1m', csv: '-', probe: false }, io),
      );
      expect(code).toBe(0);
      const [header, row, end] = io.out().split('\r\n');
      expect(header).toBe(CSV_COLUMNS.join(','));
      expect(row).toMatch(/^trace\.csv,127\.0\.0\.1:\d+,2,60000,,4,3,1,0,0,0,1,/);
      expect(end).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('fits the report to the terminal: every line within COLUMNS=80, as compare does', async () => {
    const io = bufferIO({ env: { NO_COLOR: '1', COLUMNS: '80' } });
    const code = await withServe({ algorithm: 'fixed-window', limit: 5, window: '1s' }, (url) =>
      attackCommand({ url, trace: fixture('traces/phase-bursts.csv'), chart: false, probe: false }, io),
    );
    expect(code).toBe(0);
    const lines = io.out().split('\n');
    expect(lines.filter((line) => line.length > 80)).toEqual([]);
    expect(io.out()).toContain('worst win');
    // The title is sentences: the trace's description ends before the replay's begins.
    expect(io.out().replace(/\n\s*/g, ' ')).toContain(
      `Recorded traffic from ${fixture('traces/phase-bursts.csv')}. Replayed against`,
    );
  });

  it('stops at --max-requests and reports what was sent', async () => {
    const { code, report, err } = await withServe({ algorithm: 'gcra', limit: 100, window: '1s' }, (url) =>
      attack({ url, scenario: 'steady-over', maxRequests: 5, probe: false }),
    );
    expect(code).toBe(0);
    expect([report.stoppedBy, report.responses.sent, report.metrics.offered]).toEqual(['max-requests', 5, 5]);
    expect(report.unsent).toBe(1500 - 5); // 150/s for 10 s
    expect(err).toMatch(/stopped at --max-requests 5; \d+ events not sent/);
  });

  it('stops when interrupted, reports the requests sent so far and exits 130', async () => {
    const controller = new AbortController();
    const { code, report, err } = await withServe({ algorithm: 'sliding-counter', limit: 100, window: '1s' }, (url) => {
      const running = attack({ url, scenario: 'steady-under', signal: controller.signal });
      setTimeout(() => controller.abort(), 300);
      return running;
    });
    expect(code).toBe(130);
    expect(report.stoppedBy).toBe('interrupted');
    expect(report.responses.sent).toBeGreaterThan(0);
    expect(report.responses.sent).toBeLessThan(800);
    expect(report.responses.errors).toBe(0);
    expect(err).toMatch(/interrupted: the report covers the \d+ requests sent so far/);
  });

  it('says the endpoint is unreachable, exit 3, when nothing answers', async () => {
    const probe = createNetServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const io = bufferIO();
    expect(await run(['attack', `http://127.0.0.1:${port}/`, fixture('http-liar.yaml'), '--no-probe'], io)).toBe(3);
    expect(io.err()).toMatch(
      new RegExp(`ratelab: no response from 127\\.0\\.0\\.1:${port}: ECONNREFUSED \\(2 of 2 requests failed\\)\\n$`),
    );
    expect(io.out()).toBe('');
  });

  it.each([
    [['attack', 'http://192.0.2.10/', 'edge-attack'], /192\.0\.2\.10 is not a loopback address; pass --allow-remote/],
    [['attack', 'http://[2001:db8::1]:8080/', 'edge-attack'], /is not a loopback address/],
    [['attack', 'https://127.0.0.1/', 'edge-attack'], /only http:\/\/ is supported/],
    [['attack', 'not a url', 'edge-attack'], /URL: expected an http:\/\/ URL/],
    [['attack', 'http://127.0.0.1:9/', 'no-such-scenario'], /unknown scenario "no-such-scenario"/],
    [['attack', 'http://127.0.0.1:9/', 'edge-attack', '--speed', '0'], /--speed: expected a number above 0/],
    [['attack', 'http://127.0.0.1:9/', 'edge-attack', '--limit', '5'], /--limit: give --window too/],
    [
      ['attack', 'http://127.0.0.1:9/', 'edge-attack', '--max-worst-window', 'lots'],
      /--max-worst-window: expected a number of at least 0, got "lots"/,
    ],
    [
      ['attack', 'http://127.0.0.1:9/', 'edge-attack', '--max-error', '150'],
      /--max-error: expected a number from 0 to 100, got "150"/,
    ],
    [
      ['attack', 'http://127.0.0.1:9/', 'edge-attack', '--connections', '0'],
      /--connections: expected a whole number from 1/,
    ],
    [
      ['attack', 'http://127.0.0.1:9/', 'edge-attack', '--key-header', 'X Key'],
      /--key-header: expected an HTTP header name/,
    ],
    [['attack', 'http://127.0.0.1:9/'], /SCENARIO: expected a built-in scenario name/],
    [
      ['attack', 'http://127.0.0.1:9/', 'edge-attack', '--json', 'no/such/folder/out.json'],
      /--json: no\/such\/folder\/out.json: the folder .* does not exist/,
    ],
  ])('refuses %j before sending anything (exit 2)', async (argv, message) => {
    const io = bufferIO();
    expect(await run(argv, io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(io.err().trim().split('\n')).toHaveLength(1);
  });
});
