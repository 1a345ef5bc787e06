import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runAudit } from '../../src/audit/run-audit.js';
import type { AuditOptions } from '../../src/audit/run-options.js';
import { RatelabError } from '../../src/core/errors.js';

// The audit's verdicts where the endpoint gives it little to work with, each against a
// small server written here; the real limiters are in targets.test.ts.

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  }
});

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1') {
  const server = createServer(handler);
  servers.push(server);
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`;
}

function options(url: string, more: Partial<AuditOptions> = {}): AuditOptions {
  return { url: new URL(url), paths: [], inFlight: 16, maxTimeMs: 20_000, maxRequests: 2000, timeoutMs: 2000, ...more };
}

const ok = (_req: IncomingMessage, res: ServerResponse) => res.end('ok');

/** A fixed window of `limit` per `windowMs` (epoch-aligned) under the key `keyOf` gives. */
function fixedWindow(limit: number, windowMs: number, keyOf: (req: IncomingMessage) => string) {
  const counts = new Map<string, { index: number; count: number }>();
  return (req: IncomingMessage, res: ServerResponse) => {
    const index = Math.floor(Date.now() / windowMs);
    const key = keyOf(req);
    const entry = counts.get(key);
    const state = entry && entry.index === index ? entry : { index, count: 0 };
    counts.set(key, state);
    if (state.count >= limit) {
      res.writeHead(429, { 'Retry-After': String(Math.ceil(((index + 1) * windowMs - Date.now()) / 1000)) });
      res.end('slow down');
      return;
    }
    state.count++;
    res.end('ok');
  };
}

describe('runAudit on endpoints that give it little to work with', () => {
  it('an endpoint that never limits within --max-requests: family none, with what was sent', async () => {
    const report = await runAudit(options(await serve(ok), { maxRequests: 200 }));
    expect(report.algorithm.family).toBe('none');
    expect(report.algorithm.evidence[0]).toMatch(/^120 requests from one client in [\d.]+ s, all admitted/);
    expect(report.denial.status).toBeNull();
    expect(report.requests).toBeLessThanOrEqual(200);
  });

  it('one quota for every client: scope global, and the probes that need fresh clients are said to be skipped', async () => {
    const report = await runAudit(options(await serve(fixedWindow(5, 500, () => 'everyone'))));
    expect(report.scope.kind).toBe('global');
    expect(report.algorithm.family).toBe('fixed-window');
    expect(report.policy).toMatchObject({ limit: 5, windowMs: 500 });
    expect(report.weaker.join(' ')).toMatch(/one quota for every client/);
    // No fresh client exists: the concurrency probe waited out the window instead.
    expect(report.concurrency).toMatchObject({ admitted: 5, expected: 5, overAdmitted: 0 });
  });

  it('a discovery run across a window’s reset (more than the limit admitted at first): the resets give the limit', async () => {
    const limiter = fixedWindow(20, 500, (req) => req.socket.remoteAddress ?? '');
    let first = true;
    // The very first request is decided at once but answered 1 ms before the next reset, so
    // the discovery's run that follows it crosses the reset whatever the machine's speed.
    const url = await serve((req, res) => {
      if (!first) return limiter(req, res);
      first = false;
      const end = res.end.bind(res);
      res.end = ((...args: Parameters<typeof end>) => {
        setTimeout(() => end(...args), 499 - (Date.now() % 500));
        return res;
      }) as typeof res.end;
      limiter(req, res);
    });
    const report = await runAudit(options(url));
    const discovery = report.timelines.find((timeline) => timeline.probe === 'discovery');
    expect(discovery?.shots.filter((shot) => shot.outcome !== 'denied').length).toBeGreaterThan(20);
    expect(report.algorithm.family).toBe('fixed-window');
    expect(report.policy).toMatchObject({ limit: 20, windowMs: 500 });
  });

  it('a budget per route: --path finds each path its own', async () => {
    const url = await serve(fixedWindow(5, 500, (req) => `${req.socket.remoteAddress} ${req.url}`));
    const report = await runAudit(options(url, { paths: ['/other'] }));
    expect(report.scope).toMatchObject({ kind: 'address', routes: 'separate' });
    expect(report.paths).toEqual(['/', '/other']);
  });

  it('a budget shared by the routes: --path finds the other path spent', async () => {
    const url = await serve(fixedWindow(5, 500, (req) => req.socket.remoteAddress ?? ''));
    const report = await runAudit(options(url, { paths: ['/other'] }));
    expect(report.scope).toMatchObject({ kind: 'address', routes: 'shared' });
  });

  it('an IPv6 loopback target without --key-header: no identity can vary, so the scope is unknown', async () => {
    const url = await serve(
      fixedWindow(5, 500, (req) => req.socket.remoteAddress ?? ''),
      '::1',
    );
    const report = await runAudit(options(url));
    expect(report.scope.kind).toBe('unknown');
    expect(report.scope.evidence.join(' ')).toMatch(/no identity could be varied/);
  });

  it('--max-requests reached: the report is partial and says so', async () => {
    const report = await runAudit(options(await serve(fixedWindow(20, 1000, () => 'x')), { maxRequests: 30 }));
    expect(report.stoppedBy).toBe('max-requests');
    expect(report.requests).toBe(30);
    expect(report.weaker).toContain('--max-requests was reached: the probes after it did not run');
  });

  it('interrupted: the report holds what was learned', async () => {
    const url = await serve(fixedWindow(10, 5000, (req) => req.socket.remoteAddress ?? ''));
    const signal = AbortSignal.timeout(400);
    const report = await runAudit(options(url, { signal }));
    expect(report.stoppedBy).toBe('interrupted');
    expect(report.denial.status).toBe(429);
    expect(report.algorithm.family).toBe('unknown');
  });
});

/** A sliding log that logs every request before counting (Redis ZADD then ZCARD): denials spend quota. */
function loggingDenials(limit: number, windowMs: number) {
  const logs = new Map<string, number[]>();
  return (req: IncomingMessage, res: ServerResponse) => {
    const key = req.socket.remoteAddress ?? '';
    const now = Date.now();
    const log = (logs.get(key) ?? []).filter((t) => t > now - windowMs);
    log.push(now);
    logs.set(key, log);
    res.writeHead(log.length <= limit ? 200 : 429).end();
  };
}

/** A token bucket that takes a token for a denial too (it goes below zero). */
function bucketSpendingOnDenials(burst: number, ratePerSec: number) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (req: IncomingMessage, res: ServerResponse) => {
    const key = req.socket.remoteAddress ?? '';
    const now = Date.now();
    const bucket = buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) * ratePerSec) / 1000);
    bucket.at = now;
    const admitted = bucket.tokens >= 1;
    bucket.tokens -= 1;
    buckets.set(key, bucket);
    res.writeHead(admitted ? 200 : 429).end();
  };
}

describe('runAudit on limiters whose denials spend quota (a client that keeps knocking stays locked out)', () => {
  it('a sliding log that logs its denials: found, with its window, although the busy poller is kept out', async () => {
    const report = await runAudit(
      options(await serve(loggingDenials(20, 1000)), { maxTimeMs: 40_000, maxRequests: 4000 }),
    );
    expect(report.algorithm.family).toBe('sliding-log');
    expect(report.policy).toMatchObject({ limit: 20 });
    expect(Math.abs((report.policy.windowMs ?? 0) - 1000)).toBeLessThanOrEqual(100);
    expect(report.deniedCount).toBe(true);
  });

  it('a token bucket whose denials take a token: the sparse poller times its rate', async () => {
    const report = await runAudit(options(await serve(bucketSpendingOnDenials(20, 20))));
    expect(report.algorithm.family).toBe('token-bucket');
    expect(report.policy).toMatchObject({ burst: 20, ratePerSec: 20 });
    expect(report.deniedCount).toBe(true);
  });
});

describe('runAudit --soak: drift against the exact oracle of the inferred policy', () => {
  it('an exact sliding log admits what the oracle admits, within a window’s worth of timing', async () => {
    const log = new Map<string, number[]>();
    const exact = (req: IncomingMessage, res: ServerResponse) => {
      const key = req.socket.remoteAddress ?? '';
      const now = Date.now();
      const kept = (log.get(key) ?? []).filter((t) => t > now - 500);
      const admitted = kept.length < 10;
      if (admitted) kept.push(now);
      log.set(key, kept);
      res.writeHead(admitted ? 200 : 429).end();
    };
    const report = await runAudit(options(await serve(exact), { soakMs: 2000 }));
    expect(report.algorithm.family).toBe('sliding-log');
    const soak = report.soak;
    // 1.5 times 10 per 500 ms for 2 s: about 60 requests, about 40 of them admissible.
    expect(soak?.requests).toBeGreaterThan(50);
    expect(Math.abs((soak?.admitted ?? 0) - (soak?.oracleAdmitted ?? 0))).toBeLessThanOrEqual(2);
    expect(soak?.worstWindowRatio).toBeLessThanOrEqual(1.1);
    expect(report.findings.find((f) => f.topic === 'soak')?.conclusion).toMatch(/false admits, \d+ false denials/);
  });
});

describe('runAudit refuses what it cannot audit, in one line', () => {
  it('nothing listening: ENDPOINT_UNAVAILABLE (exit 3)', async () => {
    const url = await serve(ok);
    const closed = servers.pop() as Server;
    closed.close();
    await once(closed, 'close');
    await expect(runAudit(options(url))).rejects.toMatchObject({
      code: 'ENDPOINT_UNAVAILABLE',
      message: expect.stringMatching(/^URL: no response from \/ \(ECONNREFUSED\)$/),
    });
  });

  it('a redirect (a redirect loop included): not followed, INVALID_ARGUMENT naming where it points', async () => {
    const url = await serve((_req, res) => res.writeHead(302, { Location: '/' }).end());
    const error = await runAudit(options(url)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RatelabError);
    expect((error as RatelabError).message).toBe(
      'URL: answers 302 (a redirect to /); audit does not follow redirects: audit the URL it names',
    );
  });

  it('an endpoint that does not serve (404): INVALID_ARGUMENT', async () => {
    const url = await serve((_req, res) => res.writeHead(404).end());
    await expect(runAudit(options(url))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
  });
});
