import { readFileSync } from 'node:fs';
import { Command as Program, CommanderError } from 'commander';
import { RatelabError, type RatelabErrorCode } from '../errors.js';
import { algorithmsCommand } from './commands/algorithms.js';
import { checkTiersCommand } from './commands/check-tiers.js';
import { raceCommand, type RaceOptions } from './commands/race.js';
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
    .command('race')
    .description('race a naive GET-then-SET limiter against the Lua script on a real Redis, and count what each admits over the limit')
    .requiredOption('--redis <url>', 'the Redis to race on, e.g. redis://127.0.0.1:6380 (loopback only unless --allow-remote)')
    .option('--allow-remote', 'allow a non-loopback Redis host')
    .option('--algorithm <name>', 'the Lua limiter to race (default token-bucket)')
    .option('--limit <n>', 'the limit on the one key (default 1000)')
    .option('--connections <n>', 'Redis connections racing (default 4)')
    .option('--in-flight <n>', 'calls in flight per connection (default 50)')
    .option('--requests <n>', 'requests in all (default twice the limit)')
    .action(async (options: RaceOptions) => setCode(await raceCommand(options, io)));

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
