import { REDIS_BENCH_DEFAULTS, runRedisBench, type RedisBenchPlan } from '../bench/redis-throughput.js';
import { openRedis } from '../redis/client.js';
import { renderRedisBench } from '../report/text/redis-bench-report.js';
import { writeOutputs } from '../report/write-output.js';
import { EXIT } from './exit-codes.js';
import { checkOutputs, wholeNumberFlag } from './flags.js';
import type { CommandIO } from '../report/io.js';

/** The flags `ratelab bench --redis` reads. */
export interface RedisBenchFlags {
  redis: string;
  allowRemote?: boolean;
  quick?: boolean;
  rounds?: string;
  json?: string | boolean;
}

/**
 * `ratelab bench --redis URL`: ratelab's Redis token bucket, batched and per call, against
 * rate-limiter-flexible on the same server (src/bench/redis-throughput.ts). Loopback only
 * unless --allow-remote; exit 3 when Redis cannot be reached.
 */
export async function redisBenchCommand(flags: RedisBenchFlags, io: CommandIO): Promise<number> {
  const json = flags.json === true ? '-' : flags.json || undefined;
  checkOutputs({ json }, io.cwd);
  const plan: RedisBenchPlan = {
    ...REDIS_BENCH_DEFAULTS,
    ...(flags.quick ? { rounds: 3, calls: 5_000 } : {}),
    ...(flags.rounds === undefined ? {} : { rounds: wholeNumberFlag(flags.rounds, '--rounds', 1, 100) }),
  };
  const redis = await openRedis(flags.redis, { allowRemote: flags.allowRemote ?? false });
  try {
    const progress = io.stderr.isTTY ? (line: string) => io.stderr.write(`bench --redis: ${line}\n`) : () => undefined;
    const result = await runRedisBench(redis, plan, progress);
    await writeOutputs(json === undefined ? [] : [{ target: json, content: `${JSON.stringify(result, null, 2)}\n` }], io);
    (json === '-' ? io.stderr : io.stdout).write(renderRedisBench(result));
    return EXIT.OK;
  } finally {
    redis.disconnect();
  }
}
