import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRedis } from '../support/describe-redis.js';
import { startRacers } from '../support/process-race.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisClusterHandle,
  type RedisServer,
} from '../support/redis-server.js';
import type { ClientKind, CompositeTally } from './composite-worker.js';

const WORKER = fileURLToPath(new URL('./composite-worker.ts', import.meta.url));
const PROCESSES = 4;
const IN_FLIGHT = 50;
/** Long enough for the per-second limit to refill past the hourly one's 20 (5 at once, then 5 a second). */
const RUN_MS = 5000;
const PAUSE_MS = 20;

/** 4 processes x 50 callers for RUN_MS on one key of a composite `5/1s, 20/1h`: what they saw, summed. */
async function race(kind: ClientKind, addresses: string[], prefix: string): Promise<CompositeTally> {
  const racers = startRacers(
    WORKER,
    [kind, addresses.join(','), prefix, String(RUN_MS), String(IN_FLIGHT), String(PAUSE_MS)],
    PROCESSES,
  );
  const tallies = (await racers.round()).map((line) => JSON.parse(line) as CompositeTally);
  racers.end();
  const total: CompositeTally = { admitted: 0, secondOnly: 0, hourly: 0, notRedis: 0 };
  for (const tally of tallies) {
    total.admitted += tally.admitted;
    total.secondOnly += tally.secondOnly;
    total.hourly += tally.hourly;
    total.notRedis += tally.notRedis;
  }
  return total;
}

/**
 * The whole run is decided by Redis; exactly the hourly 20 are admitted; denials came both
 * from the per-second limit while the hourly one had room (so that limit held the burst
 * and refilled, more than once) and from the hourly limit once spent (a denial took nothing
 * from it: else it would be spent before 20 admissions).
 */
function expectExactlyTwenty(tally: CompositeTally): void {
  expect(tally.notRedis).toBe(0);
  expect(tally.admitted).toBe(20);
  expect(tally.secondOnly).toBeGreaterThan(0);
  expect(tally.hourly).toBeGreaterThan(0);
}

describeRedis(`composite 5/1s, 20/1h: ${PROCESSES} processes x ${IN_FLIGHT} in flight on one key`, () => {
  describe('a standalone Redis', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedisServer();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('ioredis: exactly 20 admitted over the run', async () => {
      expectExactlyTwenty(await race('ioredis', [`${server.host}:${server.port}`], 'comp-io:'));
    }, 60_000);

    it('node-redis: exactly 20 admitted over the run', async () => {
      expectExactlyTwenty(await race('node-redis', [`${server.host}:${server.port}`], 'comp-nr:'));
    }, 60_000);
  });

  describe('a Redis Cluster of 3 masters', () => {
    let cluster: RedisClusterHandle;
    beforeAll(async () => {
      cluster = await startRedisCluster(3);
    });
    afterAll(async () => {
      await cluster?.stop();
    });
    const addresses = () => cluster.startupNodes.map(({ host, port }) => `${host}:${port}`);

    it('ioredis Cluster: exactly 20 admitted over the run', async () => {
      expectExactlyTwenty(await race('ioredis-cluster', addresses(), 'comp-ioc:'));
    }, 60_000);

    it('node-redis createCluster: exactly 20 admitted over the run', async () => {
      expectExactlyTwenty(await race('node-redis-cluster', addresses(), 'comp-nrc:'));
    }, 60_000);
  });
});
