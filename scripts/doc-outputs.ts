// The outputs shown in README.md and docs/*.md, generated from their commands so they cannot
// drift. A fenced block is generated when the lines just before it are comments
//
//   <!-- output: $ ratelab check-tiers test/fixtures/tiers/many-problems.yaml -->
//   ```
//   ...
//   ```
//
// one per command, the block holding each command's output in turn. A command is
// `[$ ][VAR=value ...] [npx ]ratelab ARGS [> /dev/null] [; echo $?] [| STEP ...]`:
// - `$ ` shows the command line in the block (without its `| STEP`s), as a prompt;
// - the block shows stdout, then stderr; `> /dev/null` leaves stdout out;
// - `; echo $?` adds `$ echo $?` and the exit code;
// - each STEP trims the output: `head -n N`, `tail -n N`, or `lines A-B,C-D` (1-based,
//   inclusive; `...` stands for each stretch left out, and after the last if it is not the end).
// It runs `node bin/ratelab.js ARGS` from the repository's root (so run `npm run build`
// first) with NO_COLOR=1 and COLUMNS=80 unless the command sets them; the repository's own
// path and the output's blank lines at its end are removed, so the result does not depend on
// the machine. Each distinct command runs once, however many blocks show it.
//
// Only deterministic output can be generated: the lab runs on a virtual clock, but
// measured memory and speed (`B/key`, `decisions/s`, `x ref`) and anything in wall time
// (`attack`, `bench`) change from run to run. Such blocks stay unmarked and are labelled in
// the text as an example of a run.
//
// `npm run doc-outputs` rewrites the blocks; test/docs-outputs.test.ts fails while one is stale.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { forEachConcurrently } from '../src/bench/runner.js';

/** The repository's root, where commands run and docs are found. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/[\\/]$/, '');

/** What regenerates every block (named by the test when one is stale). */
export const REGENERATE = 'npm run build && npm run doc-outputs';

const MARKER = /^<!-- output: (.*) -->$/;
const FENCE = /^```/;

/** One generated block: where it is, the commands it shows, what it holds now. */
export interface OutputBlock {
  /** The doc, relative to the repository's root (`README.md`, `docs/lab.md`). */
  doc: string;
  /** 1-based line of the block's opening fence. */
  line: number;
  commands: string[];
  /** The block's lines between the fences, joined with `\n`. */
  current: string;
  /** 0-based indexes of the block's content lines in the doc: [first, end). */
  span: [number, number];
}

/** README.md and docs/*.md, relative to the repository's root. */
export function docFiles(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

/** The marked blocks of one doc's text. Throws on a marker that no fence follows. */
export function findOutputBlocks(doc: string, text: string): OutputBlock[] {
  const lines = text.split('\n');
  const blocks: OutputBlock[] = [];
  let commands: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const marker = MARKER.exec(lines[i] as string);
    if (marker) {
      commands.push((marker[1] as string).trim());
      continue;
    }
    if (commands.length === 0) continue;
    if (!FENCE.test(lines[i] as string))
      throw new Error(`${doc}:${i + 1}: an output marker must be followed by a fenced block`);
    const end = lines.findIndex((line, j) => j > i && FENCE.test(line));
    if (end < 0) throw new Error(`${doc}:${i + 1}: the output block is never closed`);
    blocks.push({ doc, line: i + 1, commands, current: lines.slice(i + 1, end).join('\n'), span: [i + 1, end] });
    commands = [];
    i = end;
  }
  if (commands.length > 0) throw new Error(`${doc}: an output marker at the end of the file has no block`);
  return blocks;
}

/** A command of a marker, taken apart. */
interface ParsedCommand {
  env: Record<string, string>;
  args: string[];
  shown: string | undefined;
  dropStdout: boolean;
  echoExit: boolean;
  steps: string[];
}

/** Splits on whitespace, keeping '...' and "..." together (quotes removed). */
function words(text: string): string[] {
  return [...text.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? (m[3] as string));
}

function parseCommand(command: string): ParsedCommand {
  const [head = '', ...steps] = command.split(' | ').map((part) => part.trim());
  let line = head;
  const echoExit = line.endsWith('; echo $?');
  if (echoExit) line = line.slice(0, -'; echo $?'.length).trim();
  const dropStdout = line.endsWith('> /dev/null');
  const prompt = line.startsWith('$ ');
  if (prompt) line = line.slice(2);
  const env: Record<string, string> = {};
  const all = words(dropStdout ? line.slice(0, -'> /dev/null'.length) : line);
  while (/^[A-Z_]+=/.test(all[0] ?? '')) {
    const [name, ...value] = (all.shift() as string).split('=');
    env[name as string] = value.join('=');
  }
  if (all[0] === 'npx') all.shift();
  if (all.shift() !== 'ratelab') throw new Error(`output marker "${command}": the command must be ratelab ARGS`);
  return { env, args: all, shown: prompt ? line : undefined, dropStdout, echoExit, steps };
}

/** Applies `head -n N`, `tail -n N` or `lines A-B,...` to the output's lines. */
function trim(lines: string[], step: string, command: string): string[] {
  const count = /^(head|tail) -n (\d+)$/.exec(step);
  if (count) return count[1] === 'head' ? lines.slice(0, Number(count[2])) : lines.slice(-Number(count[2]));
  const ranges = /^lines (\d+-\d+(?:,\d+-\d+)*)$/.exec(step);
  if (!ranges)
    throw new Error(`output marker "${command}": unknown step "${step}" (head -n N, tail -n N, lines A-B,C-D)`);
  const kept: string[] = [];
  let next = 1;
  for (const range of (ranges[1] as string).split(',')) {
    const [from, to] = range.split('-').map(Number) as [number, number];
    if (from > next) kept.push('...');
    kept.push(...lines.slice(from - 1, to));
    next = to + 1;
  }
  if (next <= lines.length) kept.push('...');
  return kept;
}

/** What a run of `bin/ratelab.js` printed, and its exit code. */
interface Printed {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * Runs `node bin/ratelab.js ARGS` from the repository's root. Several blocks may show one
 * command (trimmed differently): each distinct run is made once per `runs` cache.
 */
function execute(parsed: ParsedCommand, command: string, runs: Map<string, Promise<Printed>>): Promise<Printed> {
  const id = JSON.stringify([parsed.env, parsed.args]);
  const cached = runs.get(id);
  if (cached) return cached;
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', COLUMNS: '80', ...parsed.env };
  delete env.FORCE_COLOR;
  const run = new Promise<Printed>((resolve, reject) => {
    execFile(
      process.execPath,
      ['bin/ratelab.js', ...parsed.args],
      { cwd: REPO_ROOT, env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : undefined;
        if (code === undefined) return reject(new Error(`output marker "${command}": ${error?.message}`));
        resolve({ stdout, stderr, code });
      },
    );
  });
  runs.set(id, run);
  return run;
}

/** What a block shows of one command: the prompt, the output trimmed, the exit code. */
async function show(command: string, runs: Map<string, Promise<Printed>>): Promise<string> {
  const parsed = parseCommand(command);
  const { stdout, stderr, code } = await execute(parsed, command, runs);
  const text = (parsed.dropStdout ? '' : stdout) + stderr;
  let lines = text.replaceAll(`${REPO_ROOT}/`, '').replace(/\n+$/, '').split('\n');
  for (const step of parsed.steps) lines = trim(lines, step, command);
  const shown = parsed.shown === undefined ? [] : [`$ ${parsed.shown}`];
  const exit = parsed.echoExit ? ['$ echo $?', String(code)] : [];
  return [...shown, ...lines, ...exit].join('\n');
}

/** The block's content as its commands print it now (`runs`: runs already made, by command). */
export async function generate(block: OutputBlock, runs = new Map<string, Promise<Printed>>()): Promise<string> {
  const parts: string[] = [];
  for (const command of block.commands) parts.push(await show(command, runs));
  return parts.join('\n');
}

/** Every marked block of every doc with what it should hold, two commands at a time. */
export async function generateAll(docs = docFiles()): Promise<{ block: OutputBlock; expected: string }[]> {
  const blocks = docs.flatMap((doc) => findOutputBlocks(doc, readFileSync(join(REPO_ROOT, doc), 'utf8')));
  const results: { block: OutputBlock; expected: string }[] = [];
  const runs = new Map<string, Promise<Printed>>();
  await forEachConcurrently(blocks, 2, async (block) => {
    results.push({ block, expected: await generate(block, runs) });
  });
  return blocks.map((block) => results.find((r) => r.block === block) as { block: OutputBlock; expected: string });
}

/** A doc's text with its blocks replaced by what they should hold (blocks of that doc, in order). */
export function rewrite(text: string, generated: { block: OutputBlock; expected: string }[]): string {
  const lines = text.split('\n');
  for (const { block, expected } of [...generated].sort((a, b) => b.block.line - a.block.line)) {
    lines.splice(block.span[0], block.span[1] - block.span[0], ...expected.split('\n'));
  }
  return lines.join('\n');
}
