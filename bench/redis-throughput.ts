// Redis token bucket throughput, side by side in one run on one redis-server and one
// ioredis connection, 50 calls in flight from one process:
//   ratelab createRedisLimiter('token-bucket')  vs  rate-limiter-flexible RateLimiterRedis,
// and both against redis-benchmark running the same EVALSHA (ratelab's script) with 50
// connections: the ceiling of the server and the loopback on this machine.
// Rounds alternate so drift on a shared machine hits all three alike; medians reported.
//
//   npx tsx bench/redis-throughput.ts [--rounds 7] [--calls 40000] [--keys 10000]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { createRedisLimiter } from '../src/redis/redis-limiter.js';
import { limiterScript } from '../src/redis/scripts.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { median } from 'simple-statistics';
import { format, numberArg, throughput } from './redis-support.js';

const run = promisify(execFile);
const ROUNDS = numberArg('--rounds', 7);
const CALLS = numberArg('--calls', 40_000);
const IN_FLIGHT = 50;
const KEYS = numberArg('--keys', 10_000);
// Every call is admitted (at least twice the calls a key gets in the whole run, and 1000
// per minute at least), so each contender does the same work: a read-modify-write.
const LIMIT = Math.max(1000, 2 * Math.ceil((CALLS * ROUNDS) / KEYS));
const WINDOW_MS = 60_000;

const server = await startRedisServer();
const redis = new Redis(server.url);
try {
  const ratelab = createRedisLimiter('token-bucket', { limit: LIMIT, windowMs: WINDOW_MS }, { redis, prefix: 'bench:rl:', timeoutMs: 1000 });
  // rate-limiter-flexible's RateLimiterRedis is a fixed-window counter: ratelab's own fixed
  // window is measured too, as the like-for-like algorithm (context, not the claim).
  const fixedWindow = createRedisLimiter('fixed-window', { limit: LIMIT, windowMs: WINDOW_MS }, { redis, prefix: 'bench:fw:', timeoutMs: 1000 });
  const flexible = new RateLimiterRedis({ storeClient: redis, points: LIMIT, duration: WINDOW_MS / 1000, keyPrefix: 'bench:rlf' });
  const script = limiterScript('token-bucket', { limit: LIMIT, windowMs: WINDOW_MS, capacity: LIMIT }, 0);
  await ratelab.consume('warm-up'); // caches the scripts on the server for EVALSHA
  await fixedWindow.consume('warm-up');

  const contenders: Record<string, () => Promise<number>> = {
    'ratelab RedisLimiter token-bucket': () =>
      throughput(CALLS, IN_FLIGHT, async (i) => {
        const decision = await ratelab.consume(`k${i % KEYS}`);
        if (decision.reason !== 'redis' || !decision.allowed) throw new Error(`unexpected decision ${JSON.stringify(decision)}`);
      }),
    'ratelab RedisLimiter fixed-window': () =>
      throughput(CALLS, IN_FLIGHT, async (i) => {
        const decision = await fixedWindow.consume(`k${i % KEYS}`);
        if (decision.reason !== 'redis' || !decision.allowed) throw new Error(`unexpected decision ${JSON.stringify(decision)}`);
      }),
    'rate-limiter-flexible RateLimiterRedis': () =>
      throughput(CALLS, IN_FLIGHT, async (i) => {
        const result = await flexible.consume(`k${i % KEYS}`).catch((error: unknown) => error);
        if (!(result instanceof RateLimiterRes) || result.remainingPoints < 0) throw new Error(`unexpected result ${String(result)}`);
      }),
    'redis-benchmark EVALSHA (same script), -c 50': async () => {
      // The same arguments the limiter sends: cost 1, and '' for the server's time.
      const args = ['-h', server.host, '-p', String(server.port), '-c', String(IN_FLIGHT), '-n', String(CALLS), '-r', String(KEYS), '--csv',
        'EVALSHA', script.sha, '1', 'bench:rb:tb:__rand_int__', '1', ''];
      const { stdout } = await run('redis-benchmark', args);
      const rps = Number(/"EVALSHA[^"]*","([\d.]+)"/.exec(stdout)?.[1]);
      if (!Number.isFinite(rps)) throw new Error(`cannot read redis-benchmark output:\n${stdout}`);
      return rps;
    },
  };

  const samples = new Map<string, number[]>(Object.keys(contenders).map((name) => [name, []]));
  // Where the time goes: this process's CPU and the server's script time, per call.
  const clientUs = new Map<string, number[]>(Object.keys(contenders).map((name) => [name, []]));
  const serverUs = new Map<string, number[]>(Object.keys(contenders).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, measure] of Object.entries(contenders)) {
      await redis.config('RESETSTAT');
      const cpu = process.cpuUsage();
      samples.get(name)!.push(await measure());
      const used = process.cpuUsage(cpu);
      clientUs.get(name)!.push((used.user + used.system) / CALLS);
      const stats = await redis.info('commandstats');
      serverUs.get(name)!.push(Number(/cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)?.[1] ?? NaN));
    }
  }
  const medians = new Map([...samples].map(([name, values]) => [name, median(values)]));
  const [ours, ourFixedWindow, theirs, ceiling] = [...medians.values()] as [number, number, number, number];

  console.log(`Redis ${(await redis.info('server')).match(/redis_version:(\S+)/)?.[1]}, loopback, ${IN_FLIGHT} in flight, ${format(CALLS)} calls x ${ROUNDS} rounds over ${format(KEYS)} keys (medians)`);
  for (const [name, value] of medians) {
    const cpu = name.startsWith('redis-benchmark') ? '' : `, Node CPU ${median(clientUs.get(name)!).toFixed(1)} us/call`;
    console.log(`  ${name.padEnd(46)} ${format(value).padStart(8)} calls/s   server ${median(serverUs.get(name)!).toFixed(1)} us/call${cpu}   (rounds: ${samples.get(name)!.map(format).join(', ')})`);
  }
  console.log(`  ratelab / rate-limiter-flexible   ${(ours / theirs).toFixed(2)}x   (claim: >= 1.0)`);
  console.log(`  ratelab fixed-window / rate-limiter-flexible   ${(ourFixedWindow / theirs).toFixed(2)}x   (same algorithm)`);
  console.log(`  ratelab / redis-benchmark         ${(ours / ceiling).toFixed(2)}x`);
  console.log(`  rate-limiter-flexible / redis-benchmark ${(theirs / ceiling).toFixed(2)}x`);
  process.exitCode = ours >= theirs ? 0 : 1;
} finally {
  redis.disconnect();
  await server.stop();
}
