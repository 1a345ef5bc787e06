import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { CSV_COLUMNS } from '../src/report/data/compare-csv.js';
import { builtinScenarios } from '../src/scenario/builtins.js';
import {
  REGENERATE,
  REPO_ROOT,
  docFiles,
  findOutputBlocks,
  generate,
  generateAll,
  rewrite,
  type OutputBlock,
} from '../scripts/doc-outputs.js';

// Runs dist/ (bin/ratelab.js): `npm run build` first, as for the other CLI tests.
describe('the outputs the docs show are what their commands print', () => {
  const blocks = docFiles().flatMap((doc) => findOutputBlocks(doc, readFileSync(join(REPO_ROOT, doc), 'utf8')));
  let generated: { block: OutputBlock; expected: string }[] = [];

  beforeAll(async () => {
    generated = await generateAll();
  }, 180_000);

  it('the docs mark generated blocks (README.md and docs/ both)', () => {
    expect(new Set(blocks.map((block) => block.doc.split('/')[0]))).toEqual(new Set(['README.md', 'docs']));
  });

  it.each(blocks.map((block) => [`${block.doc}:${block.line}`, block] as const))('%s', (_where, block) => {
    const { expected } = generated.find((g) => g.block.doc === block.doc && g.block.line === block.line) as {
      expected: string;
    };
    expect(
      block.current,
      `${block.doc}:${block.line}: the block after "<!-- output: ${block.commands.join(' -->, <!-- output: ')} -->" is stale; regenerate it with ${REGENERATE}`,
    ).toBe(expected);
  });
});

describe('marking and rewriting blocks (scripts/doc-outputs.ts)', () => {
  const doc = [
    'text',
    '<!-- output: $ ratelab algorithms | head -n 1 -->',
    '<!-- output: ratelab nope > /dev/null; echo $? -->',
    '```',
    'old',
    '```',
    'after',
    '',
  ].join('\n');

  it('finds a block with every marker just before it, and its content', () => {
    const [block] = findOutputBlocks('x.md', doc);
    expect(block).toMatchObject({
      doc: 'x.md',
      line: 4,
      commands: ['$ ratelab algorithms | head -n 1', 'ratelab nope > /dev/null; echo $?'],
      current: 'old',
      span: [4, 5],
    });
  });

  it('rewrites only the content between the fences', () => {
    const [block] = findOutputBlocks('x.md', doc) as [OutputBlock];
    expect(rewrite(doc, [{ block, expected: 'new\nlines' }])).toBe(doc.replace('\nold\n', '\nnew\nlines\n'));
  });

  it('refuses a marker with no block after it, naming the doc and line', () => {
    expect(() => findOutputBlocks('y.md', '<!-- output: ratelab algorithms -->\ntext\n')).toThrow(
      'y.md:2: an output marker must be followed by a fenced block',
    );
  });

  it('shows the prompt, stderr after stdout, the exit code, and trims lines', async () => {
    const block = { doc: 'z.md', line: 1, current: '', span: [1, 1] as [number, number] };
    const missing = await generate({ ...block, commands: ['$ ratelab check-tiers no-such.yaml; echo $?'] });
    expect(missing).toBe(
      ['$ ratelab check-tiers no-such.yaml', 'ratelab: no-such.yaml: no such file', '$ echo $?', '2'].join('\n'),
    );
    const algorithms = (await generate({ ...block, commands: ['ratelab algorithms'] })).split('\n');
    expect(await generate({ ...block, commands: ['ratelab algorithms | lines 1-2,4-4'] })).toBe(
      [...algorithms.slice(0, 2), '...', algorithms[3], '...'].join('\n'),
    );
  });
});

describe('facts the docs state', () => {
  it('"N built-in scenarios" is how many there are', () => {
    const count = builtinScenarios().length;
    const stated = docFiles().flatMap((doc) =>
      [...readFileSync(join(REPO_ROOT, doc), 'utf8').matchAll(/(\d+) built-in scenarios/g)].map(
        (m) => `${doc}: ${m[1]} built-in scenarios`,
      ),
    );
    expect(stated.length).toBeGreaterThan(0);
    expect(stated).toEqual(stated.map((claim) => claim.replace(/: \d+ /, `: ${count} `)));
  });

  it("lab.md's table of columns lists the CSV's columns in the CSV's order, as it says", () => {
    const text = readFileSync(join(REPO_ROOT, 'docs/lab.md'), 'utf8');
    const table = text.slice(text.indexOf('| table | CSV column | JSON field |'), text.indexOf('The exact oracle is'));
    const listed = table
      .split('\n')
      .slice(2)
      .flatMap((row) => [...(row.split(' | ')[1] ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]));
    expect(text).toContain('its columns in the order of the CSV column above');
    expect(listed).toEqual([...CSV_COLUMNS]);
  });

  it("testing.md's contract example is test/redis/contract.test.ts's code, word for word", () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs/testing.md'), 'utf8');
    const example = /this is `test\/redis\/contract\.test\.ts`:\n\n {2}```ts\n([\s\S]*?)\n {2}```/.exec(doc)?.[1];
    const code = (text: string) =>
      text
        .split('\n')
        .map((line) => line.replace(/\s*\/\/.*$/, '').trim())
        .filter((line) => line !== '');
    const test = readFileSync(join(REPO_ROOT, 'test/redis/contract.test.ts'), 'utf8');
    expect(example).toBeDefined();
    expect(code(test)).toEqual(code(example as string));
  });
});
