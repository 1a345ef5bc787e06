import { performance } from 'node:perf_hooks';
import { createLimiter } from '../memory/limiter.js';
import { openRedis } from '../redis/client.js';
import { createRedisLimiter } from '../redis/redis-limiter.js';
import { fixed, unjudged, type FidelityCase, type FidelityCheck } from './case.js';

const REQUESTS = 2_000;
const KEYS = 100;
const POLICY = { limit: 100, windowMs: 1000 };

const CLAIM = {
  id: 'redis/lua-latency',
  claim: 'A Redis Lua script adds about 1 ms per request',
  source: 'the design estimate: one round trip to Redis plus the script (docs/lab.md, "Where the claims come from")',
  expected: 'about 1 ms (loopback; a LAN adds its round trip)',
};

/** Mean ms per decision of `decide`, awaited one after another (a request waits for its decision). */
async function meanMs(decide: (key: string) => unknown): Promise<number> {
  const start = performance.now();
  for (let i = 0; i < REQUESTS; i++) await decide(`k${i % KEYS}`);
  return (performance.now() - start) / REQUESTS;
}

/**
 * Claim 8, reported and never judged (it depends on the machine and the network): the
 * latency a token-bucket Lua script on Redis adds per request over the in-memory limiter,
 * measured on the Redis given by `--redis` (loopback only). Skipped, with the reason,
 * without one.
 */
export const redisCheck: FidelityCheck = {
  name: 'redis',
  async run({ redisUrl, allowRemote }): Promise<FidelityCase[]> {
    if (redisUrl === undefined) {
      return [
        unjudged(
          {
            ...CLAIM,
            scenario: 'needs a Redis',
            measured: 'skipped: no --redis URL given',
            details: { reason: 'no --redis URL given' },
          },
          'skipped',
        ),
      ];
    }
    const client = await openRedis(redisUrl, { allowRemote: allowRemote ?? false });
    try {
      const prefix = `ratelab-fidelity:${process.pid}:${Date.now()}:`;
      const redis = createRedisLimiter('token-bucket', POLICY, { redis: client, prefix });
      const memory = createLimiter('token-bucket', POLICY);
      await meanMs((key) => redis.consume(key)); // warm up: scripts loaded, connection hot
      const redisMs = await meanMs((key) => redis.consume(key));
      const memoryMs = await meanMs((key) => memory.consume(key));
      const added = redisMs - memoryMs;
      return [
        unjudged(
          {
            ...CLAIM,
            scenario: `${REQUESTS.toLocaleString('en-US')} sequential token-bucket decisions over ${KEYS} keys, Redis on loopback vs in memory`,
            measured: `${fixed(added, 3)} ms added per request (Redis ${fixed(redisMs, 3)} ms, memory ${fixed(memoryMs, 4)} ms)`,
            details: { requests: REQUESTS, redisMeanMs: redisMs, memoryMeanMs: memoryMs, addedMs: added },
          },
          'reported',
        ),
      ];
    } finally {
      client.disconnect();
    }
  },
};
