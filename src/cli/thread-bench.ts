import { cpus, loadavg } from 'node:os';
import { runThreadBench } from '../bench/threads.js';
import { parseDuration } from '../core/duration.js';
import type { CommandIO } from '../report/io.js';
import { painter } from '../report/text/color.js';
import { renderThreadBench } from '../report/text/threads-report.js';
import { terminalWidth } from './terminal-width.js';
import { EXIT } from './exit-codes.js';
import { algorithmsFlag, wholeNumberFlag } from './flags.js';
import { checkOutputs, writeFormats, type OutputTargets } from './outputs.js';

/** Options of `ratelab bench threads`. */
export interface ThreadBenchOptions extends OutputTargets<'json'> {
  /** The thread counts, comma-separated: `1,2,4`. */
  counts: string;
  time?: string;
  rounds?: string;
  algorithms?: string;
}

/**
 * `ratelab bench threads 1,2,4`: the shared limiter on worker threads, per-key locks
 * against one global lock, on the hot key and on 1e4 keys (src/bench/threads.ts).
 * `--algorithms` picks the algorithm (the first named; default token-bucket), `--time`
 * the measuring time per round (default 1s) and `--rounds` the rounds (default 3, median).
 * `countsField` names the counts in an error (the deprecated `bench --threads` passes its flag).
 */
export async function threadBenchCommand(
  options: ThreadBenchOptions,
  io: CommandIO,
  countsField = 'COUNTS',
): Promise<number> {
  const threads = options.counts.split(',').map((part) => wholeNumberFlag(part, countsField, 1, 64));
  const plan = {
    threads,
    algorithm:
      options.algorithms === undefined
        ? ('token-bucket' as const)
        : (algorithmsFlag(options.algorithms)[0] ?? 'token-bucket'),
    keyCounts: [1, 10_000],
    timeMs: options.time === undefined ? 1000 : parseDuration(options.time, '--time'),
    rounds: options.rounds === undefined ? 3 : wholeNumberFlag(options.rounds, '--rounds', 1, 100),
  };
  const toStdout = checkOutputs(options, io.cwd);
  const machine = { cores: cpus().length, load: loadavg()[0] as number, node: process.versions.node };
  const figures = await runThreadBench(plan);
  await writeFormats(options, { json: () => `${JSON.stringify({ plan, machine, figures }, null, 2)}\n` }, io);
  // Data owns stdout when it was sent there; the report then goes to stderr.
  (toStdout ? io.stderr : io.stdout).write(renderThreadBench(figures, machine, painter(io), terminalWidth(io)));
  return EXIT.OK;
}
