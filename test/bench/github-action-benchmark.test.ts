import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { finishBench } from '../../src/cli/commands/bench.js';
import { run as runCli } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { memory, rounds, run, speed } from './sample-runs.js';

// What benchmark-action/github-action-benchmark reads with `tool: customBiggerIsBetter` or
// `customSmallerIsBetter`: a JSON array of its BenchmarkResult (src/extract.ts:
// `{ name: string; value: number; range?: string; unit: string; extra?: string }`), names
// unique within a run (it keys charts and alerts by name). A range it parses as `± <number>`
// (src/extractRangeInfo.ts).
const actionSchema = z
  .array(
    z.strictObject({
      name: z.string().min(1),
      value: z.number().finite(),
      unit: z.string(),
      range: z
        .string()
        .regex(/^(\+-|±)\s*\d/)
        .optional(),
      extra: z.string().optional(),
    }),
  )
  .min(1)
  .refine((entries) => new Set(entries.map((e) => e.name)).size === entries.length, 'names must be unique');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ratelab-gab-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const measured = run([
  { ...speed('reference/hot-key', rounds(1, 0)), referenceValue: undefined },
  { ...speed('token-bucket/hot-key', rounds(0.9, 0.03)), referenceValue: 1.1e8 },
  memory('reference', 69.4, 69.4),
  memory('token-bucket', 56.6, 69.4),
]);
const before = run([
  speed('reference/hot-key', rounds(1, 0)),
  speed('token-bucket/hot-key', rounds(0.5, 0.03)),
  memory('token-bucket', 56.6, 69.4),
]);

describe('--format github-action-benchmark', () => {
  it('writes the speed ratios as customBiggerIsBetter entries the action accepts', async () => {
    const io = bufferIO({ cwd: dir });
    await finishBench(
      measured,
      before,
      { json: 'speed.json', format: 'github-action-benchmark', baseline: 'base.json' },
      io,
    );
    const entries = actionSchema.parse(JSON.parse(await readFile(join(dir, 'speed.json'), 'utf8')));
    expect(entries.map((e) => [e.name, e.unit, e.value])).toEqual([
      ['reference/hot-key', 'x reference', 1],
      ['token-bucket/hot-key', 'x reference', 0.9],
    ]);
    expect(entries[1]?.range).toBe('± 0.018');
    expect(entries[0]).not.toHaveProperty('range'); // the reference's ratio is 1 by definition
    expect(entries[1]?.extra).toContain('admitted: 100.0%');
    expect(entries[1]?.extra).toContain('vs baseline: +80.0%');
    // The report still goes to the terminal, the data to the file.
    expect(io.out()).toContain('Decisions per second');
  });

  it('writes the bytes per key as customSmallerIsBetter entries with -memory', async () => {
    const io = bufferIO();
    await finishBench(measured, undefined, { format: 'github-action-benchmark-memory' }, io);
    const entries = actionSchema.parse(JSON.parse(io.out()));
    expect(entries.map((e) => [e.name, e.unit, e.value])).toEqual([
      ['reference/memory', 'B/key', 69.4],
      ['token-bucket/memory', 'B/key', 56.6],
    ]);
    expect(io.err()).toContain('Memory per key');
  });
});

describe('ratelab bench --quick --json out.json --baseline base.json, measured', () => {
  it('writes the comparison section and the verdict, and --quiet prints one line', async () => {
    await writeFile(
      join(dir, 'base.json'),
      JSON.stringify(run([speed('reference/hot-key', rounds(1, 0)), speed('token-bucket/hot-key', rounds(0.05, 0))])),
    );
    const io = bufferIO({ cwd: dir });
    const args = [
      'bench',
      '--quick',
      '--algorithms',
      'token-bucket',
      '--rounds',
      '2',
      '--time',
      '10ms',
      '--memory-keys',
      '0',
      '--json',
      'out.json',
      '--baseline',
      'base.json',
      '--quiet',
    ];
    expect(await runCli(args, io)).toBe(0);
    const written = JSON.parse(await readFile(join(dir, 'out.json'), 'utf8')) as {
      verdict: string;
      comparison: Array<{ figure: string; verdict: string }>;
    };
    expect(written.verdict).toBe('pass');
    expect(written.comparison.map((row) => row.figure)).toEqual([
      'reference/hot-key',
      'reference/keys-1e4',
      'token-bucket/hot-key',
      'token-bucket/keys-1e4',
      'token-bucket:1-limit/hot-key',
      'token-bucket:1-limit/keys-1e4',
      'token-bucket:2-limits/hot-key',
      'token-bucket:2-limits/keys-1e4',
      'token-bucket:listener/hot-key',
      'token-bucket:listener/keys-1e4',
    ]);
    expect(written.comparison.find((row) => row.figure === 'token-bucket/keys-1e4')?.verdict).toBe('new');
    expect(io.out()).toBe('no regression beyond 10% against base.json (10 figures)\n');
  }, 60_000);
});

describe('docs/ci/bench.yml, the documented workflow', () => {
  it('runs the gate with flags bench has, and hands the action the file in the format its tool reads', async () => {
    const { parse } = await import('yaml');
    const { COMMANDS } = await import('../../src/cli/command-table.js');
    const workflow = parse(await readFile(new URL('../../docs/ci/bench.yml', import.meta.url), 'utf8')) as {
      on: Record<string, unknown>;
      jobs: { bench: { steps: Array<{ run?: string; uses?: string; with?: Record<string, string> }> } };
    };
    expect(Object.keys(workflow.on)).toContain('pull_request');
    const steps = workflow.jobs.bench.steps;
    const gate = steps.find((step) => step.run?.includes('bin/ratelab.js bench'))?.run as string;
    const known = (COMMANDS.find((c) => c.name === 'bench')?.flags ?? []).map((f) => f.flags.split(' ')[0]);
    for (const flag of gate.match(/--[a-z-]+/g) ?? []) expect(known).toContain(flag);
    const words = gate.split(/\s+/);
    const after = (flag: string) => words[words.indexOf(flag) + 1];
    expect(after('--format')).toBe('github-action-benchmark');
    expect(after('--baseline')).toBe('bench/baseline.quick.json');
    const action = steps.find((step) => step.uses?.startsWith('benchmark-action/github-action-benchmark@'));
    expect(action?.with).toMatchObject({ tool: 'customBiggerIsBetter', 'output-file-path': after('--json') });
  });
});
