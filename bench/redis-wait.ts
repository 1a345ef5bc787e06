// What `replicas: { wait: 1, timeoutMs }` costs: WAIT 1 pipelined behind every script call,
// against the same limiter without it, side by side in one run on a fresh master with one
// replica (loopback, one ioredis connection): the token bucket batched (the default) and
// per call, 10 000 keys, every call admitted, rounds alternating the order. Calls/s as
// medians of per-round ratios to the same path without WAIT, and per-call latency p50/p99
// (medians over rounds). What it buys is in test/redis/failover.test.ts (a failover with a
// lagging replica: admissions beyond the limit without it, none with it) and
// bench/redis-failover.ts.
//
//   npx tsx bench/redis-wait.ts [--rounds 7] [--calls 20000] [--in-flight 50]
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { median } from 'simple-statistics';
import { percentiles } from '../src/metrics/percentile.js';
import { boundedRedisOptions } from '../src/redis/client.js';
import { createRedisLimiter, type RedisLimiterOptions } from '../src/redis/redis-limiter.js';
import { REPLICATE_AT_ONCE, startRedisServer, waitReplicasInSync } from '../test/support/redis-server.js';
import { format, numberArg, throughput } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 7);
const CALLS = numberArg('--calls', 20_000);
const IN_FLIGHT = numberArg('--in-flight', 50);
const KEYS = 10_000;
const WAIT = { wait: 1, timeoutMs: 50 };
const VARIANTS: Array<[string, Partial<RedisLimiterOptions>]> = [
  ['batched', {}],
  ['batched + WAIT 1', { replicas: WAIT }],
  ['per call', { batch: false }],
  ['per call + WAIT 1', { batch: false, replicas: WAIT }],
];
const LABELS = VARIANTS.map(([label]) => label);

const master = await startRedisServer(REPLICATE_AT_ONCE);
const replica = await startRedisServer(['--replicaof', master.host, String(master.port)]);
await waitReplicasInSync([replica], 1);
const redis = new Redis(master.url, boundedRedisOptions(5000));
await new Promise((resolve) => redis.once('ready', resolve));
try {
  const policy = { limit: 1_000_000_000, windowMs: 60_000 };
  const limiters = new Map(
    VARIANTS.map(([label, options], i) => [
      label,
      createRedisLimiter('token-bucket', policy, {
        redis,
        prefix: `bench:wait${i}:`,
        timeoutMs: 5000,
        failMode: 'closed',
        ...options,
      }),
    ]),
  );
  const rates = new Map<string, number[]>(LABELS.map((label) => [label, []]));
  const p50s = new Map<string, number[]>(LABELS.map((label) => [label, []]));
  const p99s = new Map<string, number[]>(LABELS.map((label) => [label, []]));
  const unacknowledged = new Map<string, number>(LABELS.map((label) => [label, 0]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...LABELS.slice(round % LABELS.length), ...LABELS.slice(0, round % LABELS.length)];
    for (const label of order) {
      const limiter = limiters.get(label)!;
      const took = new Float64Array(CALLS);
      rates.get(label)!.push(
        await throughput(CALLS, IN_FLIGHT, async (i) => {
          const started = performance.now();
          const decision = await limiter.consume(`k${i % KEYS}`);
          took[i] = performance.now() - started;
          if (decision.reason === 'redis' && decision.allowed) return;
          // Without a replica's acknowledgement within WAIT's timeout an admission is the fail mode's: counted, not an error.
          if (label.endsWith('WAIT 1') && decision.reason === 'fail-closed')
            unacknowledged.set(label, unacknowledged.get(label)! + 1);
          else throw new Error(`${label}: unexpected decision ${JSON.stringify(decision)}`);
        }),
      );
      const [p50, p99] = percentiles(took, [0.5, 0.99]) as [number, number];
      p50s.get(label)!.push(p50);
      p99s.get(label)!.push(p99);
    }
  }
  console.log(
    `load average ${os
      .loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  console.log(
    `WAIT 1 (timeoutMs ${WAIT.timeoutMs}) behind each script call, ${IN_FLIGHT} in flight, ${format(CALLS)} calls x ${ROUNDS} rounds over ${format(KEYS)} keys, a master and one replica on loopback`,
  );
  console.log(
    `  ${'contender'.padEnd(18)} ${'calls/s'.padStart(8)}  x same without WAIT  p50 ms  p99 ms  not acknowledged in time (fail-closed)`,
  );
  for (const [label] of VARIANTS) {
    const base = rates.get(label.replace(' + WAIT 1', ''))!;
    const ratio = median(rates.get(label)!.map((r, i) => r / base[i]!));
    console.log(
      `  ${label.padEnd(18)} ${format(median(rates.get(label)!)).padStart(8)}  ${ratio.toFixed(2).padStart(19)}  ${median(p50s.get(label)!).toFixed(2).padStart(6)}  ${median(p99s.get(label)!).toFixed(2).padStart(6)}  ${format(unacknowledged.get(label)!)} of ${format(CALLS * ROUNDS)}`,
    );
  }
} finally {
  redis.disconnect();
  await replica.stop();
  await master.stop();
}
