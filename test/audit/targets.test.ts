import { afterEach, describe, expect, it } from 'vitest';
import type { AuditReport, Family } from '../../src/audit/audit-report.js';
import { runAudit } from '../../src/audit/run-audit.js';
import { startBrokenLimiter } from './fixtures/broken-limiter.js';
import type { Fixture } from './fixtures/child-server.js';
import { startExpressRateLimit } from './fixtures/express-rate-limit.js';
import { startNginx } from './fixtures/nginx.js';
import { startRateLimiterFlexible } from './fixtures/rate-limiter-flexible.js';
import { startRatelabServe } from './fixtures/ratelab-serve.js';

// The audit against real limiters whose ground truth is known, each started on loopback as a
// child process: it must name the family, the limit within 5% and the window (or rate)
// within 10%, the scope and the denial's status, within the bounds it was given (a report
// that stopped at a bound would say so in `stoppedBy`). `ratelab serve` needs `npm run build`.

/** What a target's limiter is, as the audit must find it. */
interface Truth {
  family: Family;
  /** For the window families. */
  limit?: number;
  windowMs?: number;
  /** For the bucket families. */
  ratePerSec?: number;
  burst?: number;
  scope: 'address' | 'header';
  status: number;
}

interface Target {
  name: string;
  start: () => Promise<Fixture>;
  truth: Truth;
  keyHeader?: string;
  /** The bounds the audit must finish within (default 60 s and 5,000 requests). */
  maxTimeMs?: number;
  maxRequests?: number;
}

const TARGETS: Target[] = [
  {
    name: 'ratelab serve token-bucket 100/1s: under 20 s and 2,000 requests',
    start: () => startRatelabServe({ algorithm: 'token-bucket', limit: 100, window: '1s' }),
    truth: { family: 'token-bucket', ratePerSec: 100, burst: 100, scope: 'address', status: 429 },
    maxTimeMs: 20_000,
    maxRequests: 2000,
  },
  {
    name: 'ratelab serve gcra 20/1s burst 40 per X-API-Key (the token bucket family)',
    start: () => startRatelabServe({ algorithm: 'gcra', limit: 20, window: '1s', burst: 40, trustApiKeys: true }),
    truth: { family: 'token-bucket', ratePerSec: 20, burst: 40, scope: 'header', status: 429 },
    keyHeader: 'x-api-key',
  },
  {
    name: 'ratelab serve sliding-log 50/2s',
    start: () => startRatelabServe({ algorithm: 'sliding-log', limit: 50, window: '2s' }),
    truth: { family: 'sliding-log', limit: 50, windowMs: 2000, scope: 'address', status: 429 },
  },
  {
    name: 'ratelab serve sliding-counter 100/1s',
    start: () => startRatelabServe({ algorithm: 'sliding-counter', limit: 100, window: '1s' }),
    truth: { family: 'sliding-counter', limit: 100, windowMs: 1000, scope: 'address', status: 429 },
  },
  {
    name: 'ratelab serve fixed-window 30/2s per X-API-Key',
    start: () => startRatelabServe({ algorithm: 'fixed-window', limit: 30, window: '2s', trustApiKeys: true }),
    truth: { family: 'fixed-window', limit: 30, windowMs: 2000, scope: 'header', status: 429 },
    keyHeader: 'x-api-key',
  },
  {
    name: 'ratelab serve fixed-window 50/10s: a 10 s window within 60 s',
    start: () => startRatelabServe({ algorithm: 'fixed-window', limit: 50, window: '10s' }),
    truth: { family: 'fixed-window', limit: 50, windowMs: 10_000, scope: 'address', status: 429 },
  },
  {
    name: 'express-rate-limit 50 per 2 s, draft-7 headers',
    start: () => startExpressRateLimit({ limit: 50, windowMs: 2000, standardHeaders: 'draft-7', legacyHeaders: true }),
    truth: { family: 'fixed-window', limit: 50, windowMs: 2000, scope: 'address', status: 429 },
  },
  {
    name: 'express-rate-limit 20 per 1 s, draft-8 headers, keyed by X-API-Key',
    start: () =>
      startExpressRateLimit({
        limit: 20,
        windowMs: 1000,
        standardHeaders: 'draft-8',
        legacyHeaders: false,
        keyHeader: 'x-api-key',
      }),
    truth: { family: 'fixed-window', limit: 20, windowMs: 1000, scope: 'header', status: 429 },
    keyHeader: 'x-api-key',
  },
  {
    name: 'rate-limiter-flexible RateLimiterMemory 20 points per 2 s',
    start: () => startRateLimiterFlexible({ points: 20, duration: 2 }),
    truth: { family: 'fixed-window', limit: 20, windowMs: 2000, scope: 'address', status: 429 },
  },
  {
    name: 'nginx limit_req rate=10r/s burst=20 nodelay (denies with 503)',
    start: () => startNginx({ rate: 10, burst: 20, nodelay: true }),
    truth: { family: 'token-bucket', ratePerSec: 10, burst: 21, scope: 'address', status: 503 },
  },
  {
    name: 'nginx limit_req rate=10r/s burst=20 nodelay, limit_req_status 429',
    start: () => startNginx({ rate: 10, burst: 20, nodelay: true, status: 429 }),
    truth: { family: 'token-bucket', ratePerSec: 10, burst: 21, scope: 'address', status: 429 },
  },
  {
    name: 'nginx limit_req rate=10r/s burst=20 without nodelay (delays: a queue)',
    start: () => startNginx({ rate: 10, burst: 20, nodelay: false }),
    truth: { family: 'leaky-bucket-queue', ratePerSec: 10, burst: 21, scope: 'address', status: 503 },
  },
];

let fixture: Fixture | undefined;

afterEach(async () => {
  await fixture?.stop();
  fixture = undefined;
});

async function audit(target: Pick<Target, 'start' | 'keyHeader' | 'maxTimeMs' | 'maxRequests'>): Promise<AuditReport> {
  fixture = await target.start();
  return runAudit({
    url: new URL(fixture.url),
    paths: [],
    ...(target.keyHeader ? { keyHeader: target.keyHeader } : {}),
    inFlight: 64,
    maxTimeMs: target.maxTimeMs ?? 60_000,
    maxRequests: target.maxRequests ?? 5000,
    timeoutMs: 10_000,
  });
}

/** `measured` is within `share` of `truth`. */
function near(measured: number | null | undefined, truth: number, share: number): boolean {
  return measured !== null && measured !== undefined && Math.abs(measured - truth) <= share * truth;
}

describe('ratelab audit finds what each real limiter is', () => {
  for (const target of TARGETS) {
    it(target.name, { timeout: 90_000 }, async () => {
      const report = await audit(target);
      const { truth } = target;
      const found = {
        family: report.algorithm.family,
        scope: report.scope.kind,
        status: report.denial.status,
        stoppedBy: report.stoppedBy,
        ...(truth.limit === undefined
          ? {
              rateWithin10: near(report.policy.ratePerSec, truth.ratePerSec as number, 0.1),
              burstWithin5: near(report.policy.burst, truth.burst as number, 0.05),
            }
          : {
              limitWithin5: near(report.policy.limit, truth.limit, 0.05),
              windowWithin10: near(report.policy.windowMs, truth.windowMs as number, 0.1),
            }),
      };
      expect(found, JSON.stringify({ policy: report.policy, evidence: report.algorithm.evidence })).toEqual({
        family: truth.family,
        scope: truth.scope,
        status: truth.status,
        stoppedBy: 'done',
        ...(truth.limit === undefined
          ? { rateWithin10: true, burstWithin5: true }
          : { limitWithin5: true, windowWithin10: true }),
      });
    });
  }
});

describe('ratelab audit catches the limiters broken on purpose', () => {
  it('a read-then-write store over-admits with 64 in flight', { timeout: 90_000 }, async () => {
    const report = await audit({ start: () => startBrokenLimiter({ mode: 'race', limit: 10, windowMs: 1000 }) });
    // One at a time it is an exact fixed window of 10 per second...
    expect(report.algorithm.family).toBe('fixed-window');
    expect(report.policy).toMatchObject({ limit: 10 });
    // ...but 64 at once read the same count.
    expect(report.concurrency?.overAdmitted).toBeGreaterThan(0);
    expect(report.findings.find((f) => f.topic === 'concurrency')?.conclusion).toMatch(
      /over-admitted with 64 in flight/,
    );
  });

  it('a Retry-After in milliseconds is wrong, and says so', { timeout: 90_000 }, async () => {
    const report = await audit({
      start: () => startBrokenLimiter({ mode: 'retry-after-ms', limit: 10, windowMs: 1000 }),
    });
    const retryAfter = report.headers.find((h) => h.name === 'Retry-After');
    expect(retryAfter?.verdict).toBe('wrong');
    expect(retryAfter?.detail).toMatch(/in ms, not s/);
    expect(report.concurrency?.overAdmitted).toBe(0);
  });

  it(
    'a truthful limiter’s headers are judged truthful (ratelab serve, every field it sends)',
    { timeout: 90_000 },
    async () => {
      const report = await audit({
        start: () => startRatelabServe({ algorithm: 'fixed-window', limit: 20, window: '2s' }),
      });
      expect(report.headers.filter((h) => h.verdict !== 'truthful')).toEqual([]);
      expect(report.headers.map((h) => h.name)).toContain('Retry-After');
    },
  );
});
