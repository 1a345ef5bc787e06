// The command table: each command's flags typed against its options, and what the table
// promises at run time. The type assertions here (expectTypeOf, `@ts-expect-error`) are
// checked by `npm run typecheck` (tsc covers test/): a spec that stopped failing to compile
// fails the typecheck as an unused `@ts-expect-error`.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { COMMANDS } from '../../src/cli/command-table.js';
import { POLICY_FLAGS } from '../../src/cli/flag-groups.js';
import {
  defineCommand,
  flagName,
  type ArgumentValues,
  type FlagSpec,
  type FlagSpecs,
} from '../../src/cli/flag-spec.js';
import { run } from '../../src/cli/main.js';
import { bufferIO, type Command } from '../../src/report/io.js';

interface Options {
  limit?: string;
  quick?: boolean;
  chart?: boolean;
  redis: string;
  limiter?: string[];
  json?: string | true;
  url: string;
}

declare const command: Command<Options>;

describe('flag specs are typed against the options', () => {
  it('a spec of the right kind for every option compiles; the arguments are typed by their syntax', () => {
    const spec = defineCommand<Options, 'url'>()({
      name: 'probe',
      description: 'a command of every kind of flag',
      arguments: [{ syntax: '<url>', description: 'the target' }],
      flags: {
        limit: POLICY_FLAGS.limit,
        quick: { description: 'a switch' },
        chart: { negate: true, description: 'a negated switch' },
        redis: { value: '<url>', description: 'required', required: true },
        limiter: { value: '<module>', description: 'repeatable', repeatable: true },
        json: { output: 'the figures' },
      },
      options: (flags, [url]) => {
        expectTypeOf(url).toEqualTypeOf<string>();
        expectTypeOf(flags.limit).toEqualTypeOf<string | undefined>();
        return { ...flags, url };
      },
      load: async () => command,
    });
    expect(spec.flags.map((line) => line.flags)).toEqual([
      '--limit <n>',
      '--quick',
      '--no-chart',
      '--redis <url>',
      '--limiter <module>',
      '--json [file]',
    ]);
  });

  it('each kind of mistake fails to compile', () => {
    const mistakes: unknown[] = [
      // why: a switch hands over true or false, the option holds text
      // @ts-expect-error the spec of a text option needs a value
      { limit: { description: 'no value' } } satisfies FlagSpecs<{ limit?: string }>,
      // why: the flag's name is the option's, spelled alike
      // @ts-expect-error a misspelled flag
      { limt: { value: '<n>', description: 'typo' } } satisfies FlagSpecs<{ limit?: string }>,
      // why: an option the command cannot run without needs a required flag
      // @ts-expect-error an optional flag for a required option
      { redis: { value: '<url>', description: 'optional' } } satisfies FlagSpecs<{ redis: string }>,
      // why: every option is a flag, or named as not one (defineCommand's second argument)
      // @ts-expect-error a missing flag
      { limit: { value: '<n>', description: 'only one' } } satisfies FlagSpecs<{ limit?: string; seed?: string }>,
      // why: an output flag hands over a file or true
      // @ts-expect-error an output flag for an option that holds text only
      { json: { output: 'the figures' } } satisfies FlagSpecs<{ json?: string }>,
      // why: only the registry's formats are output flags
      // @ts-expect-error an output flag on an option that is no format
      { limit: { output: 'the figures' } } satisfies FlagSpecs<{ limit?: string }>,
    ];
    expect(mistakes).toHaveLength(6);
  });

  it('an optional argument cannot fill a required option', () => {
    defineCommand<{ url: string }, 'url'>()({
      name: 'probe',
      description: 'an optional argument',
      arguments: [{ syntax: '[url]', description: 'the target' }],
      flags: {},
      // @ts-expect-error url may be undefined here
      options: (_flags, [url]) => ({ url }),
      load: async () => async () => 0,
    });
    expectTypeOf<
      ArgumentValues<readonly [{ syntax: '<file>'; description: '' }, { syntax: '[scenarios...]'; description: '' }]>
    >().toEqualTypeOf<[string, string[]]>();
    expectTypeOf<FlagSpec<boolean | undefined>>().not.toHaveProperty('value');
  });
});

describe('the table', () => {
  const lines = COMMANDS.flatMap((spec) => [spec, ...spec.subcommands]).flatMap((spec) =>
    spec.flags.map((line) => ({ command: spec.name, ...line })),
  );

  it('gives each flag one spelling in every command that takes it', () => {
    const syntaxes = new Map<string, Set<string>>();
    for (const line of lines) {
      const [name] = line.flags.split(' ');
      syntaxes.set(name as string, (syntaxes.get(name as string) ?? new Set()).add(line.flags));
    }
    expect([...syntaxes].filter(([, spelled]) => spelled.size > 1)).toEqual([]);
    expect(syntaxes.get('--json')).toEqual(new Set(['--json [file]']));
    expect(syntaxes.get('--max-error')).toEqual(new Set(['--max-error <percent>']));
  });

  it('names each flag after its option', () => {
    expect(flagName('maxWorstWindow', { value: '<ratio>', description: '' })).toBe('--max-worst-window');
    expect(flagName('chart', { negate: true, description: '' })).toBe('--no-chart');
  });

  it("hides bench's deprecated spellings from its help, and lists its subcommands", async () => {
    const io = bufferIO();
    expect(await run(['bench', '--help'], io)).toBe(0);
    expect(io.out()).toMatch(/^ {2}redis \[options\]/m);
    expect(io.out()).toMatch(/^ {2}threads \[options\] <counts>/m);
    for (const hidden of ['--redis', '--threads', '--allow-remote']) expect(io.out()).not.toContain(hidden);
  });

  it.each([
    { command: 'scenarios', args: [], flags: { schema: 'yes' }, why: 'a switch with text' },
    { command: 'check-tiers', args: [], flags: {}, why: 'a required argument missing' },
    { command: 'race', args: [], flags: {}, why: 'a required flag missing' },
  ])(
    'refuses values commander could not have parsed from the table: $command, $why',
    async ({ command: name, args, flags }) => {
      const spec = COMMANDS.find((candidate) => candidate.name === name);
      const runner = await spec?.load();
      await expect(runner?.(args, flags, bufferIO())).rejects.toThrow(/do not fit the command table/);
    },
  );
});
