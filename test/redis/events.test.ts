// Decision events and shadow mode on the Redis limiters: the observed contract (the same
// tables as the memory limiters') on a real server, and what a fail mode reports once the
// server is killed: `failed-open`, `failed-closed`, the local share's own answers, each with
// the decision's `error` as `failure`; in shadow a closed fail mode's denial is let through.
import { Redis } from 'ioredis';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { DecisionEvent, ObservedOptions, Outcome } from '../../src/core/decision-event.js';
import { ManualClock } from '../../src/core/clock.js';
import { createApproximateLimiter } from '../../src/redis/approximate-limiter.js';
import { boundedRedisOptions } from '../../src/redis/client.js';
import { createRedisLimiter, type FailMode, type RedisRateLimiter } from '../../src/redis/redis-limiter.js';
import { describeObservedContract } from '../contract/observed-contract.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

describeRedis('decision events and shadow mode on Redis', () => {
  const fixture = useRedisServer();

  describeObservedContract(
    'redis',
    (algorithm, policy, clock, observed) =>
      createRedisLimiter(algorithm, policy, { redis: fixture.redis, clock, timeoutMs: 5000, ...observed }),
    { async: true },
  );

  describeObservedContract(
    'redis, batch: false',
    (algorithm, policy, clock, observed) =>
      createRedisLimiter(algorithm, policy, {
        redis: fixture.redis,
        clock,
        timeoutMs: 5000,
        batch: false,
        ...observed,
      }),
    { async: true, algorithms: ['gcra'] },
  );

  // One node of one (expectedNodes 1) that syncs only when told: its budget is the limit,
  // so it decides the tables as a fixed window does.
  let prefixes = 0;
  describeObservedContract(
    'approximate',
    (_algorithm, policy, clock, observed) =>
      createApproximateLimiter(policy as { limit: number; windowMs: number }, {
        redis: fixture.redis,
        expectedNodes: 1,
        autoSync: false,
        clock,
        prefix: `ratelab-observed-approx:${++prefixes}:`,
        ...observed,
      }),
    { async: false, algorithms: ['fixed-window'], composite: false },
  );
});

interface FailRow {
  outcome: Outcome;
  allowed: boolean;
  shadowDenied: boolean;
  failed: boolean;
  why: string;
}

const served = (why: string): FailRow => ({
  outcome: 'allowed',
  allowed: true,
  shadowDenied: false,
  failed: false,
  why,
});

describeRedis('decision events of the fail modes, Redis killed', () => {
  let server: RedisServer;
  let client: Redis;
  beforeEach(async () => {
    server = await startRedisServer();
    client = new Redis(server.url, boundedRedisOptions(200));
    client.on('error', () => undefined);
    await new Promise((ready) => client.once('ready', ready));
  });
  afterEach(async () => {
    client.disconnect();
    await server.stop();
  });

  it.each<{ failMode: FailMode; observed: ObservedOptions; rows: FailRow[]; title: string }>([
    {
      title: 'open: admits, failed-open',
      failMode: 'open',
      observed: {},
      rows: [
        served('Redis decides'),
        { outcome: 'failed-open', allowed: true, shadowDenied: false, failed: true, why: 'Redis is gone: admitted' },
        { outcome: 'failed-open', allowed: true, shadowDenied: false, failed: true, why: 'past the limit still' },
      ],
    },
    {
      title: 'closed: denies, failed-closed',
      failMode: 'closed',
      observed: {},
      rows: [
        served('Redis decides'),
        { outcome: 'failed-closed', allowed: false, shadowDenied: false, failed: true, why: 'Redis is gone: denied' },
        { outcome: 'failed-closed', allowed: false, shadowDenied: false, failed: true, why: 'every call' },
      ],
    },
    {
      title: "local: the share's own answers, allowed then denied, the failure said",
      failMode: 'local',
      observed: {},
      rows: [
        served('Redis decides'),
        {
          outcome: 'allowed',
          allowed: true,
          shadowDenied: false,
          failed: true,
          why: 'the local share (1 of 2) admits',
        },
        { outcome: 'denied', allowed: false, shadowDenied: false, failed: true, why: 'the share is spent' },
      ],
    },
    {
      title: "closed in shadow: the fail mode's denial let through, shadow-denied",
      failMode: 'closed',
      observed: { enforce: false },
      rows: [
        served('Redis decides'),
        { outcome: 'shadow-denied', allowed: true, shadowDenied: true, failed: true, why: 'would be failed-closed' },
        { outcome: 'shadow-denied', allowed: true, shadowDenied: true, failed: true, why: 'every call' },
      ],
    },
  ])('failMode $title', async ({ failMode, observed, rows }) => {
    const events: DecisionEvent[] = [];
    const limiter: RedisRateLimiter = createRedisLimiter(
      'fixed-window',
      { limit: 2, windowMs: 60_000 },
      {
        redis: client,
        clock: new ManualClock(0),
        timeoutMs: 200,
        failMode,
        expectedNodes: 2,
        name: 'api',
        onDecision: (event) => void events.push(event),
        ...observed,
      },
    );
    for (const [i, row] of rows.entries()) {
      if (i === 1) await server.kill();
      const decision = await limiter.consume('k');
      const event = events[i] as DecisionEvent;
      const why = `row ${i + 1}: ${row.why}`;
      expect(event.decision, why).toBe(decision);
      expect(
        {
          outcome: event.outcome,
          allowed: decision.allowed,
          shadowDenied: decision.shadowDenied === true,
          failed: event.failure !== undefined,
          limiter: event.limiter,
          limit: event.limit,
        },
        why,
      ).toEqual({
        outcome: row.outcome,
        allowed: row.allowed,
        shadowDenied: row.shadowDenied,
        failed: row.failed,
        limiter: 'api',
        limit: '1m',
      });
      expect(event.failure, why).toBe(decision.error);
      expect(event.durationNs, why).toBeGreaterThanOrEqual(0);
    }
    expect(events.length).toBe(rows.length);
  });
});
