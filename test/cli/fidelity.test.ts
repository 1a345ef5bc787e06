import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { run } from '../../src/cli/main.js';
import { fidelityCommand } from '../../src/cli/commands/fidelity.js';
import type { FidelityCheck } from '../../src/fidelity/case.js';
import { bufferIO } from '../../src/report/io.js';
import { FIDELITY_CSV_COLUMNS } from '../../src/report/data/fidelity-csv.js';

const dir = mkdtempSync(join(tmpdir(), 'ratelab-fidelity-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('ratelab fidelity --redis with no Redis there', () => {
  it('fails fast: exit 3, one line naming the address, before any other check runs', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    let ran = 0;
    const spy: FidelityCheck = {
      name: 'spy',
      run: async () => {
        ran += 1;
        return [];
      },
    };
    await expect(
      fidelityCommand({ redis: `redis://127.0.0.1:${port}`, checks: [spy] }, bufferIO({ cwd: dir })),
    ).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    expect(ran).toBe(0);
    const io = bufferIO({ cwd: dir });
    expect(await run(['fidelity', '--redis', `redis://127.0.0.1:${port}`, '--json', 'never.json'], io)).toBe(3);
    expect(io.out()).toBe('');
    expect(existsSync(join(dir, 'never.json'))).toBe(false);
    expect(io.err()).toMatch(new RegExp(`^ratelab: cannot reach Redis at 127\\.0\\.0\\.1:${port}: .+\\n$`));
  });
});

describe('ratelab fidelity (CLI)', () => {
  it('writes --json and --csv with every case field, and prints the table', async () => {
    const io = bufferIO({ cwd: dir });
    const code = await run(['fidelity', '--only', 'edge,gcra,redis', '--json', 'f.json', '--csv', 'f.csv'], io);
    expect(io.err()).toBe('');
    expect(code).toBe(0);
    expect(io.out()).toContain('edge/fixed-window');
    expect(io.out()).toContain('3 of 3 claims reproduced (1 skipped), seed 17');
    const json = JSON.parse(readFileSync(join(dir, 'f.json'), 'utf8')) as {
      command: string;
      seed: number;
      failed: number;
      cases: Record<string, unknown>[];
    };
    expect(json).toMatchObject({ command: 'fidelity', seed: 17, failed: 0 });
    expect(json.cases.map((c) => c.id)).toEqual([
      'edge/fixed-window',
      'edge/sliding-counter',
      'gcra/token-bucket',
      'redis/lua-latency',
    ]);
    for (const c of json.cases)
      for (const field of ['claim', 'source', 'scenario', 'expected', 'measured', 'reproduced', 'verdict', 'details'])
        expect(c).toHaveProperty(field);
    const rows = parse(readFileSync(join(dir, 'f.csv'), 'utf8'), { columns: true }) as Record<string, string>[];
    expect(Object.keys(rows[0] ?? {})).toEqual([...FIDELITY_CSV_COLUMNS]);
    expect(rows.map((r) => r.reproduced)).toEqual(['true', 'true', 'true', '']);
  }, 60_000);

  it('prints only the JSON when it goes to stdout', async () => {
    const io = bufferIO({ cwd: dir });
    expect(await run(['fidelity', '--only', 'edge', '--json', '-'], io)).toBe(0);
    expect(JSON.parse(io.out()).cases).toHaveLength(2);
  }, 60_000);

  it.each([
    [['--seed', 'x'], /--seed: expected a whole number/],
    [['--only', 'nope'], /--only: expected names from design, edge/],
    [['--only', ' , '], /--only: expected a comma-separated list/],
    [['--json', '-', '--csv', '-'], /only one of --csv and --json/],
    [['--json', 'missing/f.json'], /--json: missing\/f.json: the folder .* does not exist/],
    [['--redis', 'redis://10.0.0.1:6379'], /--redis: 10.0.0.1 is not a loopback address/],
    [['--nope'], /unknown option/],
  ])('refuses %j with exit 2 and one line, writing nothing', async (flags, message) => {
    const io = bufferIO({ cwd: dir });
    expect(await run(['fidelity', ...flags, ...(flags.includes('--csv') ? [] : ['--csv', 'bad.csv'])], io)).toBe(2);
    expect(io.err()).toMatch(message);
    expect(existsSync(join(dir, 'bad.csv'))).toBe(false);
  });
});
