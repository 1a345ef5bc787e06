// How big a batch should be: ratelab's Redis token bucket at 500 calls in flight with
// batch caps of 16, 64 and 256 keys (and batching off, and 64 without splitting an idle
// turn's calls in two: compare it at --in-flight 50), side by side in one run on a
// fresh redis-server, rounds alternating; calls/s as medians of per-round ratios to the
// 64-key default, and how long one script call holds the server (SLOWLOG, microseconds:
// median and 99th percentile; every other client of the server waits behind it). On a
// loaded machine the slowest calls include the server being descheduled: read the median.
//
//   npx tsx bench/redis-batch-cap.ts [--rounds 5] [--calls 40000] [--in-flight 500]
import { Redis } from 'ioredis';
import { median } from 'simple-statistics';
import { percentiles } from '../src/metrics/percentile.js';
import { createRedisLimiter } from '../src/redis/redis-limiter.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { format, numberArg, throughput } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 5);
const CALLS = numberArg('--calls', 40_000);
const IN_FLIGHT = numberArg('--in-flight', 500);
const KEYS = 10_000;
/** The variants, by label: batching off, caps of 16, 64 (the default) and 256, and 64 with `split: false` (one script call per idle turn). */
const VARIANTS: [string, { maxKeys: number; split?: boolean }][] = [
  ['off', { maxKeys: 1 }],
  ['max 16', { maxKeys: 16 }],
  ['max 64', { maxKeys: 64 }],
  ['max 64, no split', { maxKeys: 64, split: false }],
  ['max 256', { maxKeys: 256 }],
];
const CAPS = VARIANTS.map(([label]) => label);

const server = await startRedisServer(['--slowlog-log-slower-than', '0', '--slowlog-max-len', '100000']);
const redis = new Redis(server.url);
try {
  const policy = { limit: 1_000_000, windowMs: 60_000 };
  const limiters = new Map(
    VARIANTS.map(([label, batch], i) => [
      label,
      createRedisLimiter('token-bucket', policy, { redis, prefix: `bench:cap${i}:`, timeoutMs: 5000, batch }),
    ]),
  );
  const rates = new Map<string, number[]>(CAPS.map((cap) => [cap, []]));
  const longest = new Map<string, number[]>(CAPS.map((cap) => [cap, []]));
  const slowest = new Map<string, number[]>(CAPS.map((cap) => [cap, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...CAPS.slice(round % CAPS.length), ...CAPS.slice(0, round % CAPS.length)];
    for (const cap of order) {
      const limiter = limiters.get(cap)!;
      await redis.slowlog('RESET');
      rates.get(cap)!.push(
        await throughput(CALLS, IN_FLIGHT, async (i) => {
          const decision = await limiter.consume(`k${i % KEYS}`);
          if (decision.reason !== 'redis' || !decision.allowed)
            throw new Error(`unexpected decision ${JSON.stringify(decision)}`);
        }),
      );
      const entries = (await redis.slowlog('GET', 100_000)) as Array<[number, number, number, string[]]>;
      const held = entries.filter((e) => String(e[3]?.[0]).toLowerCase().startsWith('eval')).map((e) => e[2]);
      const [p50, p99] = percentiles(held, [0.5, 0.99]) as [number, number];
      longest.get(cap)!.push(p50);
      slowest.get(cap)!.push(p99);
    }
  }
  console.log(
    `batch caps at ${IN_FLIGHT} in flight, ${format(CALLS)} calls x ${ROUNDS} rounds over ${format(KEYS)} keys (medians; ratio = median of per-round ratios to max 64)`,
  );
  const base = rates.get('max 64')!;
  for (const cap of CAPS) {
    const ratio = median(rates.get(cap)!.map((r, i) => r / base[i]!));
    console.log(
      `  ${cap.padEnd(16)} ${format(median(rates.get(cap)!)).padStart(8)} calls/s   ${ratio.toFixed(2)}x   script holds Redis p50 ${format(median(longest.get(cap)!))} us, p99 ${format(median(slowest.get(cap)!))} us`,
    );
  }
} finally {
  redis.disconnect();
  await server.stop();
}
