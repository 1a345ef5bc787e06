import { performance } from 'node:perf_hooks';
import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundedRedisOptions } from '../../src/redis/client.js';
import { CIRCUIT_OPEN } from '../../src/redis/node-breaker.js';
import {
  createRedisLimiter,
  type FailMode,
  type RedisDecision,
  type RedisRateLimiter,
} from '../../src/redis/redis-limiter.js';
import { describeRedis } from '../support/describe-redis.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

// A behavioural bound, not a speed benchmark: ioredis's defaults hold a command for
// seconds while Redis is down; the limiter must answer within its timeout plus scheduling
// slack on a busy shared machine.
const TIMEOUT_MS = 50;
const BOUND_MS = TIMEOUT_MS + 250;

const FAIL_REASON: Record<FailMode, RedisDecision['reason']> = {
  open: 'fail-open',
  closed: 'fail-closed',
  local: 'local-fallback',
};

interface Timed {
  decision: RedisDecision;
  ms: number;
}

/** `rounds` rounds of 10 concurrent calls, each timed. */
async function hammer(limiter: RedisRateLimiter, rounds: number): Promise<Timed[]> {
  const results: Timed[] = [];
  for (let round = 0; round < rounds; round++) {
    const batch = Array.from({ length: 10 }, async (_, i) => {
      const started = performance.now();
      const decision = await limiter.consume(`key${i % 3}`);
      return { decision, ms: performance.now() - started };
    });
    results.push(...(await Promise.all(batch)));
  }
  return results;
}

/** Calls until Redis decides again (it recovers by itself), or fails after 15 s. */
async function untilRecovered(limiter: RedisRateLimiter): Promise<Timed[]> {
  const seen: Timed[] = [];
  const deadline = performance.now() + 15_000;
  while (performance.now() < deadline) {
    const started = performance.now();
    const decision = await limiter.consume('recovery');
    seen.push({ decision, ms: performance.now() - started });
    if (decision.reason === 'redis') return seen;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('Redis decisions did not come back within 15 s');
}

const CLIENTS: Array<[string, () => RedisOptions]> = [
  ['a client with bounded options', () => boundedRedisOptions(200)],
  ["a client with ioredis's default options", () => ({})],
];

describeRedis('fail modes while Redis is killed, paused or flushed', () => {
  let server: RedisServer;

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  describe.each(CLIENTS)('with %s', (_label, clientOptions) => {
    describe.each(['open', 'closed', 'local'] as FailMode[])("failMode '%s'", (failMode) => {
      let redis: Redis;
      let limiter: RedisRateLimiter;
      beforeAll(async () => {
        redis = await connected(new Redis(server.url, clientOptions()));
        limiter = createRedisLimiter(
          'token-bucket',
          { limit: 10, windowMs: 60_000 },
          { redis, timeoutMs: TIMEOUT_MS, failMode, expectedNodes: 2, prefix: `${failMode}:${_label}:` },
        );
      });
      afterAll(() => {
        redis.disconnect();
      });

      it('answers within the timeout as documented while the server is dead, and recovers when it is back', async () => {
        await untilRecovered(limiter);
        await server.kill();
        const down = await hammer(limiter, 5);
        expect(down.every((r) => r.decision.reason === FAIL_REASON[failMode])).toBe(true);
        // Each says what failed: the client's error or the timeout, sent or (breaker open) not.
        expect(down.every((r) => typeof r.decision.error === 'string' && r.decision.error.length > 0)).toBe(true);
        expect(Math.max(...down.map((r) => r.ms))).toBeLessThan(BOUND_MS);
        expectFailModeDecisions(failMode, down);
        await server.restart();
        const recovering = await untilRecovered(limiter);
        expect(Math.max(...recovering.map((r) => r.ms))).toBeLessThan(BOUND_MS);
      });

      it('answers within the timeout while the server hangs (CLIENT PAUSE), then recovers', async () => {
        const admin = new Redis(server.url);
        await untilRecovered(limiter);
        await admin.call('CLIENT', 'PAUSE', '1000', 'ALL');
        const paused = await hammer(limiter, 3);
        expect(paused.every((r) => r.decision.reason === FAIL_REASON[failMode])).toBe(true);
        // A hanging server only times out: sent calls say so, and so do those the open breaker kept back.
        expect(new Set(paused.map((r) => r.decision.error?.replace(CIRCUIT_OPEN, '')))).toEqual(
          new Set([`Redis did not answer within ${TIMEOUT_MS} ms`]),
        );
        expect(Math.max(...paused.map((r) => r.ms))).toBeLessThan(BOUND_MS);
        admin.disconnect();
        const recovering = await untilRecovered(limiter);
        expect(Math.max(...recovering.map((r) => r.ms))).toBeLessThan(BOUND_MS);
      });
    });
  });

  it('keeps deciding in Redis across SCRIPT FLUSH', async () => {
    const redis = await connected(new Redis(server.url, boundedRedisOptions()));
    const limiter = createRedisLimiter(
      'gcra',
      { limit: 100, windowMs: 60_000 },
      { redis, timeoutMs: 5000, failMode: 'closed', prefix: 'flush:' },
    );
    for (let i = 0; i < 5; i++) {
      await redis.script('FLUSH');
      expect(await limiter.consume('k')).toMatchObject({ allowed: true, remaining: 99 - i, reason: 'redis' });
    }
    redis.disconnect();
  });
});

/** Without an offline queue, a client fails commands until it is ready: wait for it. */
async function connected(redis: Redis): Promise<Redis> {
  redis.on('error', () => {});
  if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  return redis;
}

function expectFailModeDecisions(failMode: FailMode, results: Timed[]): void {
  const allowed = results.filter((r) => r.decision.allowed).length;
  if (failMode === 'open') expect(allowed).toBe(results.length);
  if (failMode === 'closed') {
    expect(allowed).toBe(0);
    expect(results.every((r) => r.decision.retryAfterMs > 0)).toBe(true);
  }
  // local: each of the 3 keys gets this node's share, limit / expectedNodes = 5.
  if (failMode === 'local') expect(allowed).toBe(15);
}
