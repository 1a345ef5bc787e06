// adaptiveThrottle against real servers on loopback, each started and stopped here:
// `ratelab serve` (every algorithm), express-rate-limit with draft-8 headers, nginx's
// limit_req (503, no headers: the AIMD path), and a server that pauses 100 callers with one
// Retry-After. Counts, not times: how many requests sent after the first learning window were
// answered 429 (or 503), beside a naive client on the same job.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { rateLimit } from 'express-rate-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALGORITHMS, adaptiveThrottle, createLimiter } from '../../src/index.js';
import { rateLimitHeaders } from '../../src/http/headers.js';
import { startNginx } from '../audit/fixtures/nginx.js';
import type { Fixture } from '../audit/fixtures/child-server.js';
import { listenOnLoopback } from '../support/listen-app.js';
import { startServe } from '../cli/run-serve.js';

/** One request as the client saw it: when it was sent (ms from the job's start) and its status. */
interface Shot {
  at: number;
  status: number;
}

/** A fetch that records every request it sends. */
function recordingFetch(shots: Shot[], start: number): (url: string) => Promise<Response> {
  return async (url: string) => {
    const at = performance.now() - start;
    const response = await fetch(url);
    shots.push({ at, status: response.status });
    return response;
  };
}

/** The share of requests sent after `afterMs` that were throttled (429, 503). */
function throttledShare(shots: Shot[], afterMs: number): { share: number; sent: number; throttled: number } {
  const late = shots.filter((shot) => shot.at >= afterMs);
  const throttled = late.filter((shot) => shot.status === 429 || shot.status === 503).length;
  return { share: late.length === 0 ? 0 : throttled / late.length, sent: late.length, throttled };
}

/** `calls` GETs of `url` through adaptiveThrottle, all queued at once; every one ends with its real response. */
async function adaptiveJob(url: string, calls: number) {
  const shots: Shot[] = [];
  const client = adaptiveThrottle(recordingFetch(shots, performance.now()), { maxWaitMs: 20_000 });
  const responses = await Promise.all(Array.from({ length: calls }, () => client(url)));
  await Promise.all(responses.map((response) => response.arrayBuffer()));
  return { shots, ok: responses.filter((r) => r.status === 200).length, stats: client.stats() };
}

/** The same job by a naive client: `concurrency` workers, each retrying a throttled call at once, up to 3 times. */
async function naiveJob(url: string, calls: number, concurrency: number) {
  const shots: Shot[] = [];
  const send = recordingFetch(shots, performance.now());
  let next = 0;
  let ok = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next++;
        for (let attempt = 0; attempt < 4; attempt++) {
          const response = await send(url);
          await response.arrayBuffer();
          if (response.status === 200) {
            ok++;
            break;
          }
        }
      }
    }),
  );
  return { shots, ok };
}

/** Runs both clients on fresh servers and reports them on one line; returns the adaptive client's late share. */
async function compare(
  name: string,
  start: () => Promise<{ url: string; stop(): Promise<unknown> }>,
  calls: number,
  windowMs: number,
) {
  const adaptiveServer = await start();
  let adaptive;
  try {
    adaptive = await adaptiveJob(`${adaptiveServer.url}/`, calls);
  } finally {
    await adaptiveServer.stop();
  }
  const naiveServer = await start();
  let naive;
  try {
    naive = await naiveJob(`${naiveServer.url}/`, calls, 20);
  } finally {
    await naiveServer.stop();
  }
  const a = throttledShare(adaptive.shots, windowMs);
  const [aAll, nAll] = [throttledShare(adaptive.shots, 0), throttledShare(naive.shots, 0)];
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  console.info(
    `${name}: adaptive ${a.throttled}/${a.sent} throttled after the first window (${pct(a.share)}), ${aAll.throttled}/${aAll.sent} in all, ${adaptive.ok}/${calls} ok; naive ${nAll.throttled}/${nAll.sent} throttled in all (${pct(nAll.share)}), ${naive.ok}/${calls} ok`,
  );
  return { adaptive, late: a };
}

describe.concurrent('ratelab serve, 20 per second, every algorithm', () => {
  it.each(ALGORITHMS.map((algorithm) => [algorithm]))(
    '%s: 60 calls, at most 5% of those after the first second throttled',
    async (algorithm) => {
      const start = async () => {
        const serve = await startServe({ algorithm, limit: 20, window: '1s', quiet: true });
        return { url: serve.url.replace(/\/$/, ''), stop: serve.stop };
      };
      const { adaptive, late } = await compare(`serve ${algorithm}`, start, 60, 1000);
      expect(adaptive.ok).toBe(60);
      expect(late.share).toBeLessThanOrEqual(0.05);
      expect(adaptive.stats.keys[Object.keys(adaptive.stats.keys)[0] as string]?.policy).toMatchObject({
        limit: 20,
        windowMs: 1000,
      });
    },
  );
});

describe('express-rate-limit 8 with draft-8 headers (a fixed window of 10 per second)', () => {
  it('40 calls, at most 5% of those after the first window throttled', async () => {
    const start = async () => {
      const app = express();
      app.use(rateLimit({ windowMs: 1000, limit: 10, standardHeaders: 'draft-8', legacyHeaders: false }));
      app.get('/', (_req, res) => void res.send('ok'));
      const { origin, close } = await listenOnLoopback(app);
      return { url: origin, stop: close };
    };
    const { adaptive, late } = await compare('express-rate-limit draft-8', start, 40, 1000);
    expect(adaptive.ok).toBe(40);
    expect(late.share).toBeLessThanOrEqual(0.05);
  });
});

describe('nginx limit_req (10r/s, burst 5 nodelay: 503 and no headers, the AIMD path)', () => {
  it('40 calls, at most 20% of those after the first second throttled', async () => {
    const start = async (): Promise<{ url: string; stop(): Promise<void> }> => {
      const fixture: Fixture = await startNginx({ rate: 10, burst: 5, nodelay: true });
      return { url: fixture.url, stop: () => fixture.stop() };
    };
    const { adaptive, late } = await compare('nginx limit_req', start, 40, 1000);
    expect(adaptive.ok).toBe(40);
    expect(late.share).toBeLessThanOrEqual(0.2);
  });
});

describe('the herd: 100 callers paused by one Retry-After: 2', () => {
  let server: Server;
  let url: string;
  /** Arrival times at the server, ms (performance.now), and the statuses it answered. */
  const arrivals: { at: number; status: number }[] = [];

  beforeAll(async () => {
    const limiter = createLimiter('token-bucket', { limit: 50, windowMs: 1000, burst: 50 });
    const policy = { name: 'api', limits: limiter.limits };
    server = createServer((_req, res) => {
      const at = performance.now();
      if (arrivals.length === 0) {
        arrivals.push({ at, status: 429 });
        res.writeHead(429, { 'Retry-After': '2', 'RateLimit-Policy': '"api";q=50;w=1' }).end();
        return;
      }
      const decision = limiter.consume('all');
      const status = decision.allowed ? 200 : 429;
      arrivals.push({ at, status });
      res.writeHead(status, Object.fromEntries(rateLimitHeaders(decision, policy, { ietf: true }))).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('nothing arrives during the pause; then no more than the burst in any 10 ms, and few 429s', async () => {
    const client = adaptiveThrottle((u: string) => fetch(u), { maxWaitMs: 20_000 });
    const responses = await Promise.all(Array.from({ length: 100 }, () => client(url)));
    await Promise.all(responses.map((response) => response.arrayBuffer()));
    expect(responses.every((response) => response.status === 200)).toBe(true);
    const [probe, ...rest] = arrivals;
    // The pause is 2 s from the client's reading of the 429; the server sees it a hair earlier.
    expect(rest.filter((a) => a.at < (probe?.at ?? 0) + 1900)).toEqual([]);
    const mostIn10ms = Math.max(...rest.map((a) => rest.filter((b) => b.at >= a.at && b.at < a.at + 10).length));
    expect(mostIn10ms).toBeLessThanOrEqual(50);
    expect(rest.filter((a) => a.status === 429).length).toBeLessThanOrEqual(5);
    console.info(
      `herd: ${rest.length} after the pause, at most ${mostIn10ms} in 10 ms, ${rest.filter((a) => a.status === 429).length} answered 429`,
    );
  });
});
