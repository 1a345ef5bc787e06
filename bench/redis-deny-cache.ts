// The deny cache on abusive traffic, side by side in one run on one redis-server:
// 90% of calls go to keys already over their limit, 10% to well-behaved keys; 50 in
// flight from one process. Same traffic with and without `denyCache`: calls per second,
// and the number admitted, which must be equal (a cached denial is one Redis would give).
//
//   npx tsx bench/redis-deny-cache.ts [--rounds 5] [--calls 40000]
import { Redis } from 'ioredis';
import { createRedisLimiter, type RedisRateLimiter } from '../src/redis/redis-limiter.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { median } from 'simple-statistics';
import { format, numberArg, throughput } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 5);
const CALLS = numberArg('--calls', 40_000);
const IN_FLIGHT = 50;
const ABUSERS = 100;
const GOOD_KEYS = 10_000;
// 100 per key over 2^40 ms: nothing refills during a run on the server's clock, so both
// variants must admit exactly the same number.
const POLICY = { limit: 100, windowMs: 2 ** 40 };

/** Call i: 9 in 10 go to an abusive key (over its limit), 1 in 10 to a fresh good key. */
const keyOf = (i: number) => (i % 10 === 9 ? `good${i % GOOD_KEYS}` : `abuser${i % ABUSERS}`);

async function round(redis: Redis, label: string, denyCache: boolean): Promise<{ rate: number; admitted: number }> {
  const limiter: RedisRateLimiter = createRedisLimiter('token-bucket', POLICY, {
    redis,
    prefix: `bench:deny:${label}:`,
    timeoutMs: 1000,
    denyCache,
  });
  for (let a = 0; a < ABUSERS; a++) await limiter.consume(`abuser${a}`, POLICY.limit); // over the limit from here on
  let admitted = 0;
  const rate = await throughput(CALLS, IN_FLIGHT, async (i) => {
    const decision = await limiter.consume(keyOf(i));
    if (decision.reason !== 'redis' && decision.reason !== 'deny-cache')
      throw new Error(`unexpected ${decision.reason}`);
    if (decision.allowed) admitted += 1;
  });
  return { rate, admitted };
}

const server = await startRedisServer();
const redis = new Redis(server.url);
try {
  const without: number[] = [];
  const withCache: number[] = [];
  const admitted = new Set<string>();
  for (let r = 0; r < ROUNDS; r++) {
    const plain = await round(redis, `plain${r}`, false);
    const cached = await round(redis, `cached${r}`, true);
    without.push(plain.rate);
    withCache.push(cached.rate);
    admitted.add(`${plain.admitted} without, ${cached.admitted} with`);
    if (plain.admitted !== cached.admitted) process.exitCode = 1;
  }
  const ratio = median(withCache) / median(without);
  console.log(
    `abusive traffic: ${format(CALLS)} calls x ${ROUNDS} rounds, 90% to ${ABUSERS} keys over their limit, 50 in flight (medians)`,
  );
  console.log(
    `  without deny cache  ${format(median(without)).padStart(8)} calls/s   (rounds: ${without.map(format).join(', ')})`,
  );
  console.log(
    `  with deny cache     ${format(median(withCache)).padStart(8)} calls/s   (rounds: ${withCache.map(format).join(', ')})`,
  );
  console.log(`  speed-up ${ratio.toFixed(2)}x (claim: >= 3x); admitted per round: ${[...admitted].join('; ')}`);
  if (ratio < 3) process.exitCode = 1;
} finally {
  redis.disconnect();
  await server.stop();
}
