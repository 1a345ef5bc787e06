import { readFileSync } from 'node:fs';
import { Command as Program, CommanderError, Option } from 'commander';
import { RatelabError, escapeControl } from '../core/errors.js';
import { COMMANDS } from './command-table.js';
import type { CommandSpec } from './flag-spec.js';
import { EXIT, exitCodeOf } from './exit-codes.js';
import type { CommandIO } from '../report/io.js';

const VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;

/** Runs the CLI on `argv` (without node and the script) and returns the exit code. */
export async function run(argv: readonly string[], io: CommandIO): Promise<number> {
  let code: number = EXIT.OK;
  const program = new Program('ratelab')
    .description('Rate limiters, and a lab that replays traffic through them to show how they differ.')
    .version(VERSION)
    .showSuggestionAfterError()
    // A command's flags follow its name (so `bench redis --rounds 3` gives --rounds to `bench redis`).
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) });
  const setCode = (result: number) => {
    code = result;
  };
  for (const spec of COMMANDS) addCommand(program, spec, io, setCode);

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

/**
 * Adds `spec` (and its subcommands) under `parent`: its help from the table, and an action
 * that loads the command's module only now, when it runs.
 */
function addCommand(parent: Program, spec: CommandSpec, io: CommandIO, setCode: (code: number) => void): void {
  const command = parent.command(spec.name).description(spec.description);
  for (const argument of spec.arguments) command.argument(argument.syntax, argument.description);
  for (const flag of spec.flags) {
    const option = new Option(flag.flags, flag.description);
    if (flag.repeatable) option.argParser((value: string, list: string[] = []) => [...list, value]);
    if (flag.default !== undefined) option.default(flag.default);
    if (flag.required) option.makeOptionMandatory();
    if (flag.hidden) option.hideHelp();
    command.addOption(option);
  }
  if (spec.subcommands.length > 0) command.enablePositionalOptions().helpCommand(false);
  for (const subcommand of spec.subcommands) addCommand(command, subcommand, io, setCode);
  command.action(async () => {
    const runner = await spec.load();
    setCode(await runner(command.processedArgs, command.opts(), io));
  });
}

/** One line on stderr for an expected failure; the stack only for bugs, and only on request. */
function report(error: unknown, io: CommandIO): number {
  if (error instanceof CommanderError) {
    return error.exitCode === 0 ? EXIT.OK : EXIT.BAD_INPUT;
  }
  if (error instanceof RatelabError) {
    // Messages quote input (file text, flags): no control character reaches the terminal raw.
    for (const problem of error.problems) io.stderr.write(`ratelab: ${escapeControl(problem)}\n`);
    return exitCodeOf(error.code);
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`ratelab: internal error: ${escapeControl(message)} (rerun with RATELAB_DEBUG=1 for details)\n`);
  if (io.env.RATELAB_DEBUG && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT.INTERNAL;
}
