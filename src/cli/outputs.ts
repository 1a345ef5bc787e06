import { resolve } from 'node:path';
import type { CommandIO } from '../report/io.js';
import { outputProblem, writeOutputs, type Output } from '../report/write-output.js';
import { usage } from './flags.js';

// The output registry: every data format a command can write. A command declares the formats
// it writes in the command table (`csv: { output: 'one row per design' }`); their flags and
// help come from here, and so do the check of the targets before the run and the writing,
// all the files or none, after it. A new format is one entry here and its content in each
// command that writes it.

/** The output formats, in the order their flags are checked and their files written. */
export const OUTPUT_FORMATS = ['csv', 'json', 'html', 'prom'] as const;

export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** Where an output goes, as its flag gives it: a file, or `-` or true (the flag alone) for stdout. */
export type OutputTarget = string | true;

/** The targets of the formats `F` a command writes, as its options hold them. */
export type OutputTargets<F extends OutputFormat = OutputFormat> = { [K in F]?: OutputTarget };

/** The content of each format a command writes, built only for a format asked for. */
export type OutputContents<Targets> = { [K in OutputFormat & keyof Targets]-?: () => string };

const FORMAT_HELP: Record<OutputFormat, (what: string) => string> = {
  csv: (what) => `write ${what} as CSV`,
  json: (what) => `write ${what} as JSON`,
  html: (what) => `write a self-contained HTML report to open in a browser: ${what}`,
  prom: (what) => `write ${what} in the Prometheus text format`,
};

/** The help of a format's flag, from what its file holds. */
export function outputHelp(format: OutputFormat, what: string): string {
  return `${FORMAT_HELP[format](what)} (- or no file: stdout)`;
}

/** The format an option names; throws for a name that is none (the table's types admit none). */
export function outputFormat(option: string): OutputFormat {
  const format = OUTPUT_FORMATS.find((name) => name === option);
  if (format === undefined) throw new Error(`${option}: not an output format (${OUTPUT_FORMATS.join(', ')})`);
  return format;
}

/** The file a target names, `-` for stdout, undefined when the format was not asked for. */
export function outputTarget(target: OutputTarget | undefined): string | undefined {
  return target === true ? '-' : target;
}

/** Whether one of the targets is stdout (then the data owns it, and the report goes elsewhere or nowhere). */
export function sendsToStdout(targets: OutputTargets): boolean {
  return OUTPUT_FORMATS.some((format) => outputTarget(targets[format]) === '-');
}

/**
 * Checks the output targets before anything is written or run: each must be writable, at
 * most one can be stdout, and no two the same file. Returns whether one of them is stdout
 * (then no table).
 */
export function checkOutputs(targets: OutputTargets, cwd: string): boolean {
  const given: [string, string][] = [];
  for (const format of OUTPUT_FORMATS) {
    const target = outputTarget(targets[format]);
    if (target !== undefined) given.push([`--${format}`, target]);
  }
  const toStdout = given.filter(([, target]) => target === '-');
  const [first] = toStdout;
  if (first !== undefined && toStdout.length > 1)
    throw usage(first[0], `only one of ${toStdout.map(([flag]) => flag).join(' and ')} can go to stdout (-)`);
  for (const [flag, target] of given) {
    const problem = outputProblem(target, cwd);
    if (problem !== undefined) throw usage(flag, problem);
  }
  for (const [i, [flag, target]] of given.entries()) {
    const same = given
      .slice(0, i)
      .find(([, other]) => target !== '-' && other !== '-' && resolve(cwd, other) === resolve(cwd, target));
    if (same) throw usage(flag, `${target} is the file ${same[0]} writes too`);
  }
  return toStdout.length > 0;
}

/**
 * Writes the formats asked for, all or none (see writeOutputs): each content is built only
 * when its format has a target. `contents` has one entry per format the targets' type names.
 */
export async function writeFormats<Targets extends OutputTargets>(
  targets: Targets,
  contents: OutputContents<Targets>,
  io: CommandIO,
): Promise<void> {
  const byFormat: Partial<Record<OutputFormat, () => string>> = contents;
  const outputs: Output[] = [];
  for (const format of OUTPUT_FORMATS) {
    const target = outputTarget(targets[format]);
    const content = byFormat[format];
    if (target === undefined) continue;
    if (content === undefined) throw new Error(`--${format} ${target}: the command writes no ${format}`);
    outputs.push({ target, content: content() });
  }
  await writeOutputs(outputs, io);
}
