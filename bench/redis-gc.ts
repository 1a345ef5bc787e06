// Garbage-collection pauses behind Redis decisions: for ratelab's token bucket batched and
// per call and rate-limiter-flexible's RateLimiterRedis, the young-generation collections
// (scavenges) during a closed loop of 50 calls in flight over 10,000 keys on a fresh
// redis-server: how many, their total and longest pause, and the calls' p99. A scavenge
// stops every call in flight, so its pause is a floor under the p99. Ratios are medians of
// per-round ratios to rate-limiter-flexible. Run it on two commits to compare them.
//
//   npx tsx bench/redis-gc.ts [--rounds 5] [--calls 200000]
import { constants, PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { median } from 'simple-statistics';
import { percentiles } from '../src/metrics/percentile.js';
import { createRedisLimiter } from '../src/redis/redis-limiter.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { numberArg, throughput } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 5);
const CALLS = numberArg('--calls', 200_000);
const KEYS = 10_000;
const IN_FLIGHT = 50;

interface Figures {
  scavenges: number;
  pauseMs: number;
  longestMs: number;
  p99Ms: number;
}

const server = await startRedisServer();
const redis = new Redis(server.url);
try {
  const policy = { limit: 1_000_000, windowMs: 60_000 };
  const rlf = new RateLimiterRedis({ storeClient: redis, points: policy.limit, duration: 60, keyPrefix: 'bench:rlf' });
  const batched = createRedisLimiter('token-bucket', policy, { redis, prefix: 'bench:b:', timeoutMs: 5000 });
  const single = createRedisLimiter('token-bucket', policy, {
    redis,
    prefix: 'bench:s:',
    timeoutMs: 5000,
    batch: false,
  });
  const contenders: [string, (key: string) => Promise<unknown>][] = [
    ['rate-limiter-flexible RateLimiterRedis', (key) => rlf.consume(key)],
    ['ratelab token bucket, batched', (key) => batched.consume(key)],
    ['ratelab token bucket, per call', (key) => single.consume(key)],
  ];
  const results = new Map(contenders.map(([name]) => [name, [] as Figures[]]));
  for (const [, call] of contenders) await call('warm-up');
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...contenders.slice(round % contenders.length), ...contenders.slice(0, round % contenders.length)];
    for (const [name, call] of order) results.get(name)!.push(await measure(call));
  }
  console.log(
    `young-generation GC during ${CALLS.toLocaleString('en-US')} decisions at ${IN_FLIGHT} in flight, ${ROUNDS} rounds (medians; x = median of per-round ratios to rate-limiter-flexible)`,
  );
  console.log(`  ${'contender'.padEnd(40)} scavenges  pause ms (x)    longest ms  p99 ms`);
  const base = results.get(contenders[0]![0])!;
  for (const [name] of contenders) {
    const runs = results.get(name)!;
    const of = (pick: (f: Figures) => number) => median(runs.map(pick));
    const ratio = median(runs.map((f, i) => f.pauseMs / base[i]!.pauseMs));
    console.log(
      `  ${name.padEnd(40)} ${String(of((f) => f.scavenges)).padStart(9)}  ${of((f) => f.pauseMs)
        .toFixed(0)
        .padStart(8)} (${ratio.toFixed(2)})  ${of((f) => f.longestMs)
        .toFixed(2)
        .padStart(10)}  ${of((f) => f.p99Ms)
        .toFixed(2)
        .padStart(6)}`,
    );
  }
} finally {
  redis.disconnect();
  await server.stop();
}

async function measure(call: (key: string) => Promise<unknown>): Promise<Figures> {
  const pauses: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
      if (entry.detail?.kind === constants.NODE_PERFORMANCE_GC_MINOR) pauses.push(entry.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const latencies = new Float64Array(CALLS);
  await throughput(CALLS, IN_FLIGHT, async (i) => {
    const started = performance.now();
    await call(`k${i % KEYS}`);
    latencies[i] = performance.now() - started;
  });
  await new Promise((resolve) => setImmediate(resolve)); // the observer reports asynchronously
  observer.disconnect();
  const [p99] = percentiles([...latencies], [0.99]) as [number];
  return {
    scavenges: pauses.length,
    pauseMs: pauses.reduce((a, b) => a + b, 0),
    longestMs: Math.max(0, ...pauses),
    p99Ms: p99,
  };
}
