import type { Command, CommandIO } from '../report/io.js';
import { outputFormat, outputHelp, type OutputFormat, type OutputTarget } from './outputs.js';

// A command's flags, typed against the options its module takes (vitest's `CLIOptions<T>`
// idea): the spec of each flag says what commander will hand over for it (true or false,
// text, text or true, a list of text), and the spec's type only admits a kind whose values
// the option's type can hold. So a flag spelled unlike its option, a switch declared for a
// text option, or a required option behind an optional flag do not compile; and the values
// are checked against the same spec when the command runs (flagsFit), so no command casts.

/** A flag without a value: `--quick` (true when given), or with `negate` `--no-chart` (false when given, else true). */
export interface SwitchFlag {
  description: string;
  negate?: true;
  /** Accepted but left out of `--help` (a deprecated spelling). */
  hidden?: true;
}

/** A flag with a value: `--limit <n>`. */
export interface ValueFlag {
  description: string;
  value: `<${string}>`;
  /** The value when the flag is absent, shown in help as `(default: ...)`. */
  default?: string;
  hidden?: true;
}

/** A flag with a value the command does not run without. */
export interface RequiredValueFlag extends ValueFlag {
  required: true;
}

/** A flag whose value may be left out: `--json [file]` (then its value is true). */
export interface OptionalValueFlag {
  description: string;
  value: `[${string}]`;
  hidden?: true;
}

/** A flag that may be given several times: the values arrive as a list. */
export interface ListFlag {
  description: string;
  value: `<${string}>`;
  repeatable: true;
}

/**
 * An output format's flag (`--csv`, `--json`, `--html`): `--csv [file]`, a file or `-` (or no
 * file) for stdout. The command says what the file holds; the flag's help, its check before
 * the run and the all-or-nothing writing come from the output registry (outputs.ts).
 */
export interface OutputFlag {
  /** What the file holds, e.g. `one row per design`. */
  output: string;
}

export type AnyFlag = SwitchFlag | ValueFlag | RequiredValueFlag | OptionalValueFlag | ListFlag | OutputFlag;

/**
 * The specs an option of type `V` may have: each kind whose values `V` can hold; an option
 * that cannot be undefined needs a required flag.
 */
export type FlagSpec<V> =
  | (boolean extends V ? SwitchFlag : never)
  | (string extends V ? (undefined extends V ? ValueFlag : RequiredValueFlag) : never)
  | (string | true extends V ? OptionalValueFlag : never)
  | (string[] extends V ? ListFlag : never);

/**
 * A spec for every option of `Flags`, named as the option is (`maxWorstWindow` is
 * `--max-worst-window`); an option named as an output format (`csv`...) is that format's flag.
 */
export type FlagSpecs<Flags> = {
  [K in keyof Flags]-?: K extends OutputFormat
    ? OutputTarget extends Flags[K]
      ? OutputFlag
      : never
    : FlagSpec<Flags[K]>;
};

/** A positional argument, in commander's syntax: `<file>` (required), `[scenario]` (optional), `[scenarios...]` (a list). */
export interface ArgumentSpec {
  syntax: string;
  description: string;
}

/** What commander hands over for an argument of this syntax. */
type ArgumentValue<Syntax> = Syntax extends `${string}...${string}`
  ? string[]
  : Syntax extends `<${string}>`
    ? string
    : string | undefined;

/** The values of a command's positional arguments, in order. */
export type ArgumentValues<Args extends readonly ArgumentSpec[]> = {
  -readonly [I in keyof Args]: ArgumentValue<Args[I]['syntax']>;
};

/** One flag as commander and `--help` take it. */
export interface FlagLine {
  /** e.g. `--limit <n>`, `--json [file]`, `--no-chart`. */
  flags: string;
  description: string;
  default?: string;
  required?: true;
  repeatable?: true;
  hidden?: true;
}

/** A loaded command: the positional arguments and the flags from commander, exit code out. */
export type CommandRunner = (args: unknown, flags: object, io: CommandIO) => Promise<number>;

/** One command of the CLI, as the parser and `--help` read it. */
export interface CommandSpec {
  name: string;
  description: string;
  arguments: readonly ArgumentSpec[];
  flags: readonly FlagLine[];
  /** Commands under this one (`bench redis`); it runs itself when none is named. */
  subcommands: readonly CommandSpec[];
  /** Imports the command's module (when the command runs, never to build help). */
  load(): Promise<CommandRunner>;
}

/** A command's definition, typed against its options. */
export interface CommandDefinition<Options, Flags, Args extends readonly ArgumentSpec[]> {
  name: string;
  description: string;
  arguments?: Args;
  /** Every option that is a flag, in the order `--help` lists them. */
  flags: FlagSpecs<Flags>;
  /** The command's options from its flags and arguments (and the io, for a signal). */
  options: (flags: Flags, args: ArgumentValues<Args>, io: CommandIO) => Options;
  /** Imports the command's module. */
  load(): Promise<Command<Options>>;
  subcommands?: readonly CommandSpec[];
}

/**
 * A command of the table, typed against `Options`: every option not in `NotFlags` (those
 * the arguments or the caller give) must have a flag that fits it. Called twice, as
 * `defineCommand<Options, NotFlags>()({...})`, so that the arguments' types are inferred.
 */
export function defineCommand<Options extends object, NotFlags extends keyof Options = never>() {
  return <const Args extends readonly ArgumentSpec[] = []>(
    definition: CommandDefinition<Options, Omit<Options, NotFlags>, Args>,
  ): CommandSpec => commandSpec(definition);
}

/** A command without positional arguments whose options are its flags, each with a flag that fits it. */
export function flagsCommand<Options extends object>(
  definition: Omit<CommandDefinition<Options, Options, []>, 'arguments' | 'options'>,
): CommandSpec {
  return commandSpec<Options, Options, []>({ ...definition, options: (flags) => flags });
}

function commandSpec<Options, Flags, Args extends readonly ArgumentSpec[]>(
  definition: CommandDefinition<Options, Flags, Args>,
): CommandSpec {
  return {
    name: definition.name,
    description: definition.description,
    arguments: definition.arguments ?? [],
    flags: flagLines(definition.flags),
    subcommands: definition.subcommands ?? [],
    load: async () => {
      const command = await definition.load();
      return async (args, flags, io) => {
        if (!flagsFit<Flags>(definition.flags, flags)) throw misfit(definition.name, 'flags');
        if (!argumentsFit<Args>(definition.arguments, args)) throw misfit(definition.name, 'arguments');
        return command(definition.options(flags, args, io), io);
      };
    },
  };
}

/** The flag's name on the command line: `maxWorstWindow` is `--max-worst-window`, `--no-chart` when negated. */
export function flagName(option: string, spec: AnyFlag): string {
  const kebab = option.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
  return `--${'negate' in spec && spec.negate ? 'no-' : ''}${kebab}`;
}

function flagLines(specs: object): FlagLine[] {
  const declared: [string, AnyFlag][] = Object.entries(specs);
  return declared.map(([option, spec]) => {
    if ('output' in spec)
      return { flags: `--${outputFormat(option)} [file]`, description: outputHelp(outputFormat(option), spec.output) };
    return {
      flags: 'value' in spec ? `${flagName(option, spec)} ${spec.value}` : flagName(option, spec),
      description: spec.description,
      ...('default' in spec && spec.default !== undefined ? { default: spec.default } : {}),
      ...('required' in spec ? { required: spec.required } : {}),
      ...('repeatable' in spec ? { repeatable: spec.repeatable } : {}),
      ...('hidden' in spec && spec.hidden ? { hidden: spec.hidden } : {}),
    };
  });
}

/**
 * Whether the values commander handed over are those the specs declare: each flag's value
 * of its kind (a required one present), an output's a file or true. Commander builds them
 * from the same specs, so a misfit is a bug in the table.
 */
function flagsFit<Flags>(specs: FlagSpecs<Flags>, values: object): values is Flags & object {
  const given = new Map<string, unknown>(Object.entries(values));
  const declared: [string, AnyFlag][] = Object.entries(specs);
  return declared.every(([option, spec]) => valueFits(spec, given.get(option)));
}

function valueFits(spec: AnyFlag, value: unknown): boolean {
  if (value === undefined) return !('required' in spec);
  if ('output' in spec) return targetFits(value);
  if (!('value' in spec)) return typeof value === 'boolean';
  if ('repeatable' in spec) return Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (spec.value.startsWith('[')) return targetFits(value);
  return typeof value === 'string';
}

function targetFits(value: unknown): boolean {
  return value === undefined || value === true || typeof value === 'string';
}

/** Whether commander's positional values are those the specs declare (none when there are no specs). */
function argumentsFit<Args extends readonly ArgumentSpec[]>(
  specs: Args | undefined,
  values: unknown,
): values is ArgumentValues<Args> {
  if (!Array.isArray(values) || values.length > (specs?.length ?? 0)) return false;
  return (specs ?? []).every((spec, i) => {
    const value: unknown = values[i];
    if (spec.syntax.includes('...')) return Array.isArray(value) && value.every((item) => typeof item === 'string');
    return typeof value === 'string' || (spec.syntax.startsWith('[') && value === undefined);
  });
}

function misfit(command: string, what: string): Error {
  return new Error(`${command}: the ${what} commander parsed do not fit the command table`);
}
