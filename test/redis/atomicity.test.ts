import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ALGORITHMS } from '../../src/index.js';
import type { Contender } from '../../src/race/race.js';
import { describeRedis } from '../support/describe-redis.js';
import { startRacers } from '../support/process-race.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';

const WORKER = fileURLToPath(new URL('./race-worker.ts', import.meta.url));
const PROCESSES = 4;
const IN_FLIGHT = 50;
const LIMIT = 1000;
const REQUESTS_EACH = 500; // 2000 in all, twice the limit
const CONTENDERS: Contender[] = [...ALGORITHMS, 'naive'];

/**
 * Starts the racing processes once; for each contender in turn, lets them all go at the
 * same moment and sums what they admitted on their one shared key.
 */
async function raceProcesses(url: string): Promise<Map<Contender, number>> {
  const racers = startRacers(
    WORKER,
    [url, String(LIMIT), String(REQUESTS_EACH), String(IN_FLIGHT), 'atomic:', ...CONTENDERS],
    PROCESSES,
  );
  const totals = new Map<Contender, number>();
  for (const contender of CONTENDERS) {
    const counts = await racers.round();
    totals.set(
      contender,
      counts.reduce((sum, count) => sum + Number(count), 0),
    );
  }
  racers.end();
  return totals;
}

describeRedis(`atomicity: ${PROCESSES} processes x ${IN_FLIGHT} in flight on one key, limit ${LIMIT}`, () => {
  let server: RedisServer;
  let admitted: Map<Contender, number>;
  beforeAll(async () => {
    server = await startRedisServer();
    admitted = await raceProcesses(server.url);
  });
  afterAll(async () => {
    await server.stop();
  });

  it.each(ALGORITHMS)('the %s script admits exactly the limit', (algorithm) => {
    expect(admitted.get(algorithm)).toBe(LIMIT);
  });

  it('the naive GET-then-SET limiter (a teaching example) admits more than the limit', () => {
    expect(admitted.get('naive')).toBeGreaterThan(LIMIT);
  });
});
