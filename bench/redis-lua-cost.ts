// What a decision script costs Redis itself: time inside EVALSHA per decision (INFO
// commandstats, microseconds, nested commands included), for ratelab's token bucket per
// call (single.lua; and with keys kept 60 s, never expiring mid-run) and batched (batch.lua, 64 keys a call, per key), two
// limits a key packed in one value (composite.lua, 64 decisions a call), against the script
// rate-limiter-flexible's RateLimiterRedis runs (SET NX EX, INCRBY, PTTL: read from the package) and an empty
// script (the floor any EVALSHA pays). One fresh redis-server, 10,000 keys, 50 calls in
// flight, every call admitted; rounds alternate, ratios to rate-limiter-flexible's script
// are medians of per-round ratios. Run it on two commits to compare their scripts.
//
//   npx tsx bench/redis-lua-cost.ts [--rounds 5] [--calls 100000]
import { Redis } from 'ioredis';
import { median } from 'simple-statistics';
import { compositeScript, limiterScript, luaScript, type LuaScript } from '../src/redis/scripts.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { numberArg, throughput } from './redis-support.js';

const ROUNDS = numberArg('--rounds', 5);
const CALLS = numberArg('--calls', 100_000);
const KEYS = 10_000;
const BATCH = 64;

// The script rate-limiter-flexible's RateLimiterRedis sends, read from the installed
// package (an instance keeps it; the stub client only receives its command definition).
const { RateLimiterRedis } = await import('rate-limiter-flexible');
const RLF = (
  new RateLimiterRedis({
    storeClient: { defineCommand: () => undefined },
    points: 1_000_000,
    duration: 60,
  }) as unknown as { _incrTtlLuaScript: string }
)._incrTtlLuaScript;
if (typeof RLF !== 'string' || !RLF.includes('incrby'))
  throw new Error('rate-limiter-flexible: its Lua script was not found where this benchmark reads it');

interface Contender {
  name: string;
  script: LuaScript;
  /** Keys per script call. */
  keys: number;
  args(i: number): (string | number)[];
}

const limits = { limit: 1_000_000, windowMs: 60_000, capacity: 1_000_000 };
const key = (i: number) => `k${i % KEYS}`;
const contenders: Contender[] = [
  {
    name: 'rate-limiter-flexible script',
    script: luaScript('rlf', RLF),
    keys: 1,
    args: (i) => [key(i), 1, 60, 1_000_000, 60],
  },
  {
    name: 'ratelab token bucket, per call',
    script: limiterScript('token-bucket', limits, 0, false, 'single'),
    keys: 1,
    args: (i) => [key(i), 1],
  },
  // The same with keys that never expire during the run (minTtlMs 60 s): whether creating
  // keys afresh (SET ... PX) after a short TTL is what a decision costs.
  {
    name: 'the same, keys kept 60 s',
    script: limiterScript('token-bucket', limits, 60_000, false, 'single'),
    keys: 1,
    args: (i) => [key(i), 1],
  },
  {
    name: `ratelab token bucket, ${BATCH} a call`,
    script: limiterScript('token-bucket', limits, 0, false, 'batch'),
    keys: BATCH,
    args: (i) => [
      ...Array.from({ length: BATCH }, (_, k) => key(i * BATCH + k)),
      '',
      ...Array.from({ length: BATCH }, () => 1),
    ],
  },
  // Two token buckets on each key (a minute's and an hour's), packed in one value: what a
  // composite decision costs Redis against one limit's, 64 decisions a call.
  {
    name: `ratelab 2 limits, ${BATCH} a call`,
    script: compositeScript(
      [
        { name: '1m', algorithm: 'token-bucket', ...limits },
        {
          name: '1h',
          algorithm: 'token-bucket',
          limit: 60 * limits.limit,
          windowMs: 3_600_000,
          capacity: 60 * limits.capacity,
        },
      ],
      0,
    ),
    keys: BATCH,
    args: (i) => [
      ...Array.from({ length: BATCH }, (_, k) => `pack{:${key(i * BATCH + k)}}`),
      '',
      ...Array.from({ length: BATCH }, () => 1),
    ],
  },
  { name: 'empty script (the floor)', script: luaScript('empty', 'return 1'), keys: 1, args: (i) => [key(i)] },
];

const server = await startRedisServer();
const redis = new Redis(server.url);
try {
  for (const c of contenders) await redis.script('LOAD', c.script.source);
  const perDecision = new Map(contenders.map((c) => [c.name, [] as number[]]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...contenders.slice(round % contenders.length), ...contenders.slice(0, round % contenders.length)];
    for (const c of order) {
      await redis.flushall();
      await redis.config('RESETSTAT');
      const calls = Math.ceil(CALLS / c.keys);
      await throughput(calls, 50, (i) => redis.evalsha(c.script.sha, c.keys, ...c.args(i)));
      const stats = (await redis.info('commandstats')).match(/cmdstat_evalsha:calls=(\d+),usec=(\d+)/);
      if (stats === null) throw new Error('no evalsha in INFO commandstats');
      perDecision.get(c.name)!.push(Number(stats[2]) / (Number(stats[1]) * c.keys));
    }
  }
  const base = perDecision.get(contenders[0]!.name)!;
  console.log(
    `Redis ${(await redis.info('server')).match(/redis_version:(\S+)/)?.[1]}: time inside EVALSHA per decision, ${ROUNDS} rounds of ${CALLS.toLocaleString('en-US')} decisions (medians)`,
  );
  for (const c of contenders) {
    const us = perDecision.get(c.name)!;
    const ratio = median(us.map((u, i) => u / base[i]!));
    console.log(`  ${c.name.padEnd(34)} ${median(us).toFixed(2).padStart(6)} us   ${ratio.toFixed(2)}x`);
  }
} finally {
  redis.disconnect();
  await server.stop();
}
