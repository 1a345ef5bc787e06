// Redis token bucket throughput, CPU and latency, side by side in one run on a fresh
// redis-server of its own: ratelab batched (the default) and per call against
// rate-limiter-flexible's RateLimiterRedis, at 50 and 500 calls in flight. The measurement
// is src/bench/redis-throughput.ts, the same as `ratelab bench --redis URL` (which runs it
// on a server you name). Exit 1 when a goal (listed in docs/redis.md) is missed in this run.
//
//   npx tsx bench/redis-throughput.ts [--rounds 7] [--calls 20000] [--keys 10000]
import { Redis } from 'ioredis';
import {
  REDIS_BENCH_DEFAULTS,
  COMPOSITE,
  RLF,
  medianRatio,
  runRedisBench,
  type RedisContenderFigures,
} from '../src/bench/redis-throughput.js';
import { renderRedisBench } from '../src/report/text/redis-bench-report.js';
import { startRedisServer } from '../test/support/redis-server.js';
import { median } from 'simple-statistics';
import { numberArg } from './redis-support.js';

const server = await startRedisServer();
const redis = new Redis(server.url);
try {
  const plan = {
    ...REDIS_BENCH_DEFAULTS,
    rounds: numberArg('--rounds', REDIS_BENCH_DEFAULTS.rounds),
    calls: numberArg('--calls', REDIS_BENCH_DEFAULTS.calls),
    keys: numberArg('--keys', REDIS_BENCH_DEFAULTS.keys),
  };
  const result = await runRedisBench(redis, plan, (line) => process.stderr.write(`${line}\n`));
  process.stdout.write(renderRedisBench(result));
  const at = (inFlight: number, name: string) =>
    result.levels
      .find((l) => l.inFlight === inFlight)
      ?.contenders.find((c) => c.name.startsWith(name)) as RedisContenderFigures;
  const ratio = (inFlight: number, name: string) =>
    medianRatio(at(inFlight, name), at(inFlight, RLF), (f) => f.callsPerSec);
  const cpu = (f: RedisContenderFigures) => f.nodeCpuUs.map((n, i) => n + (f.serverCpuUs[i] as number));
  const goals: Array<[string, number, number]> = [
    ['batched x RLF at 50 in flight', ratio(50, 'ratelab token bucket, batched'), 2],
    ['batched x RLF at 500 in flight', ratio(500, 'ratelab token bucket, batched'), 2.5],
    ['per call x RLF at 50 in flight', ratio(50, 'ratelab token bucket, per call'), 1],
    ...[50, 500].map((inFlight): [string, number, number] => [
      `2 limits x batched at ${inFlight} in flight`,
      medianRatio(at(inFlight, COMPOSITE), at(inFlight, 'ratelab token bucket, batched'), (f) => f.callsPerSec),
      0.8,
    ]),
  ];
  const cpuRatio = medianRatio(at(50, 'ratelab token bucket, batched'), at(50, RLF), cpu);
  const p99 = median(at(50, 'ratelab token bucket, batched').p99Ms);
  console.log('\ngoals (docs/redis.md, "Speed")');
  for (const [name, value, goal] of goals)
    console.log(`  ${name.padEnd(34)} ${value.toFixed(2)}x   goal >= ${goal}   ${value >= goal ? 'met' : 'MISSED'}`);
  console.log(
    `  ${'batched total CPU x RLF at 50'.padEnd(34)} ${cpuRatio.toFixed(2)}x   goal <= 0.5   ${cpuRatio <= 0.5 ? 'met' : 'MISSED'}`,
  );
  console.log(
    `  ${'batched p99 at 50 in flight'.padEnd(34)} ${p99.toFixed(2)} ms goal < 1.5  ${p99 < 1.5 ? 'met' : 'MISSED'}`,
  );
  process.exitCode = goals.every(([, v, g]) => v >= g) && cpuRatio <= 0.5 && p99 < 1.5 ? 0 : 1;
} finally {
  redis.disconnect();
  await server.stop();
}
