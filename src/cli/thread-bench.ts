import { cpus, loadavg } from 'node:os';
import { runThreadBench } from '../bench/threads.js';
import { parseDuration } from '../core/duration.js';
import type { CommandIO } from '../report/io.js';
import { renderThreadBench } from '../report/text/threads-report.js';
import { writeOutput } from '../report/write-output.js';
import { EXIT } from './exit-codes.js';
import { algorithmsFlag, wholeNumberFlag } from './flags.js';

/** The flags of `ratelab bench --threads` (the rest of bench's are not used by it). */
export interface ThreadBenchFlags {
  threads?: string;
  time?: string;
  rounds?: string;
  algorithms?: string;
  json?: string | boolean;
}

/**
 * `ratelab bench --threads 1,2,4`: the shared limiter on worker threads, per-key locks
 * against one global lock, on the hot key and on 1e4 keys (src/bench/threads.ts).
 * `--algorithms` picks the algorithm (the first named; default token-bucket), `--time`
 * the measuring time per round (default 1s) and `--rounds` the rounds (default 3, median).
 */
export async function threadBenchCommand(flags: ThreadBenchFlags, io: CommandIO): Promise<number> {
  const threads = (flags.threads ?? '').split(',').map((part) => wholeNumberFlag(part, '--threads', 1, 64));
  const plan = {
    threads,
    algorithm: flags.algorithms === undefined ? ('token-bucket' as const) : (algorithmsFlag(flags.algorithms)[0] ?? 'token-bucket'),
    keyCounts: [1, 10_000],
    timeMs: flags.time === undefined ? 1000 : parseDuration(flags.time, '--time'),
    rounds: flags.rounds === undefined ? 3 : wholeNumberFlag(flags.rounds, '--rounds', 1, 100),
  };
  const machine = { cores: cpus().length, load: loadavg()[0] as number, node: process.versions.node };
  const figures = await runThreadBench(plan);
  if (flags.json !== undefined && flags.json !== false) {
    await writeOutput(flags.json === true ? '-' : flags.json, `${JSON.stringify({ plan, machine, figures }, null, 2)}\n`, io);
    if (flags.json === true) return EXIT.OK;
  }
  io.stdout.write(renderThreadBench(figures, machine));
  return EXIT.OK;
}
