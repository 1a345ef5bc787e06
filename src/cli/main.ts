import { readFileSync } from 'node:fs';
import { Command as Program, CommanderError } from 'commander';
import { RatelabError, type RatelabErrorCode } from '../errors.js';
import { ALGORITHMS } from '../policy.js';
import { algorithmsCommand } from './commands/algorithms.js';
import { benchCommand, type BenchOptions } from './commands/bench.js';
import { checkTiersCommand } from './commands/check-tiers.js';
import { EXIT } from './exit-codes.js';
import type { CommandIO } from './io.js';

const VERSION = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;

const UNAVAILABLE: ReadonlySet<RatelabErrorCode> = new Set(['REDIS_UNAVAILABLE']);

/** Runs the CLI on `argv` (without node and the script) and returns the exit code. */
export async function run(argv: readonly string[], io: CommandIO): Promise<number> {
  let code: number = EXIT.OK;
  const program = new Program('ratelab')
    .description('Rate limiters, and a lab that replays traffic through them to show how they differ.')
    .version(VERSION)
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const setCode = (result: number) => {
    code = result;
  };

  program
    .command('algorithms')
    .description('list the algorithms and what each keeps per key')
    .action(async () => setCode(await algorithmsCommand({}, io)));
  program
    .command('check-tiers')
    .description('validate a tiers file (YAML or JSON) and summarise it')
    .argument('<file>', 'the tiers file')
    .action(async (file: string) => setCode(await checkTiersCommand({ file }, io)));
  program
    .command('bench')
    .description('measure decisions/s and memory per key of every algorithm against a reference; compare with a baseline')
    .option('--quick', 'the CI run: hot key and 1e4 keys, algorithms only, in about 20 s')
    .option('--time <duration>', 'measuring time per task over all rounds (default 1s, quick 320ms)')
    .option('--rounds <n>', 'repeated measurements per task, over two processes, for the noise test (default 10, quick 8)')
    .option('--keys <counts>', 'key counts of the round-robin workloads (default 1e4,1e6)')
    .option('--algorithms <names>', `comma-separated, from ${ALGORITHMS.join(', ')}`)
    .option('--limiter <module>', 'also measure your limiter module (repeatable)', (value: string, list: string[] = []) => [...list, value])
    .option('--no-peers', 'skip rate-limiter-flexible, limiter and express-rate-limit')
    .option('--memory-keys <n>', 'keys of the memory probe, 0 to skip it (default 1e6)')
    .option('--json [file]', 'write every figure as JSON (stdout without a file)')
    .option('--csv [file]', 'write every figure as CSV (stdout without a file)')
    .option('--baseline <file>', 'compare with a saved --json run; exit 1 on a regression')
    .option('--max-regression <percent>', 'a drop of the ratio to the reference beyond this counts (default 10%)')
    .option('--update-baseline', 'write this run to the --baseline file (atomically)')
    .option('--no-color', 'no colour')
    .action(async (options: BenchOptions) => setCode(await benchCommand(options, io)));

  if (argv.length === 0) {
    program.outputHelp({ error: true });
    return EXIT.BAD_INPUT;
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    return report(error, io);
  }
}

/** One line on stderr for an expected failure; the stack only for bugs, and only on request. */
function report(error: unknown, io: CommandIO): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.OK : EXIT.BAD_INPUT;
  }
  if (error instanceof RatelabError) {
    for (const problem of error.problems) io.stderr.write(`ratelab: ${problem}\n`);
    return UNAVAILABLE.has(error.code) ? EXIT.UNAVAILABLE : EXIT.BAD_INPUT;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`ratelab: internal error: ${message} (rerun with RATELAB_DEBUG=1 for details)\n`);
  if (io.env.RATELAB_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT.INTERNAL;
}
