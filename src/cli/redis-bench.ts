import { REDIS_BENCH_DEFAULTS, runRedisBench, type RedisBenchPlan } from '../bench/redis-throughput.js';
import { openRedis } from '../redis/client.js';
import { redisMedians } from '../report/redis-bench-medians.js';
import { painter } from '../report/text/color.js';
import { renderRedisBench } from '../report/text/redis-bench-report.js';
import { terminalWidth } from './terminal-width.js';
import { EXIT } from './exit-codes.js';
import type { RedisTargetFlags } from './flag-groups.js';
import { wholeNumberFlag } from './flags.js';
import { checkOutputs, writeFormats, type OutputTargets } from './outputs.js';
import type { CommandIO } from '../report/io.js';

/** Options of `ratelab bench redis`. */
export interface RedisBenchOptions extends RedisTargetFlags, OutputTargets<'json'> {
  /** The Redis to measure on. */
  redis: string;
  quick?: boolean;
  rounds?: string;
}

/**
 * `ratelab bench redis --redis URL`: ratelab's Redis token bucket, batched and per call,
 * against rate-limiter-flexible on the same server (src/bench/redis-throughput.ts).
 * Loopback only unless --allow-remote; exit 3 when Redis cannot be reached.
 */
export async function redisBenchCommand(options: RedisBenchOptions, io: CommandIO): Promise<number> {
  const toStdout = checkOutputs(options, io.cwd);
  const plan: RedisBenchPlan = {
    ...REDIS_BENCH_DEFAULTS,
    ...(options.quick ? { rounds: 3, calls: 5_000 } : {}),
    ...(options.rounds === undefined ? {} : { rounds: wholeNumberFlag(options.rounds, '--rounds', 1, 100) }),
  };
  const redis = await openRedis(options.redis, { allowRemote: options.allowRemote ?? false });
  try {
    const progress = io.stderr.isTTY ? (line: string) => io.stderr.write(`bench redis: ${line}\n`) : () => undefined;
    const result = await runRedisBench(redis, plan, progress);
    // `medians`: the figures the table's calls/s and x RLF columns and the bars show.
    const json = () => `${JSON.stringify({ ...result, medians: redisMedians(result) }, null, 2)}\n`;
    await writeFormats(options, { json }, io);
    (toStdout ? io.stderr : io.stdout).write(renderRedisBench(result, painter(io), terminalWidth(io)));
    return EXIT.OK;
  } finally {
    redis.disconnect();
  }
}
