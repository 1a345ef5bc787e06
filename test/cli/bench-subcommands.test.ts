// `ratelab bench redis` and `ratelab bench threads`, and the spellings they replace
// (`bench --redis URL`, `bench --threads N`): the same run, then one deprecation line on
// stderr. Figures are the benches' business (docs/redis.md, docs/shared.md), never a test's.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli/main.js';
import { bufferIO } from '../../src/report/io.js';
import { describeRedis, useRedisServer } from '../support/describe-redis.js';

const THREADS_DEPRECATED = 'ratelab: deprecated: bench --threads N; use bench threads N\n';
const REDIS_DEPRECATED = 'ratelab: deprecated: bench --redis URL; use bench redis --redis URL\n';

/** A short thread bench's JSON (on stdout) and its stderr. */
async function threadBench(
  argv: string[],
): Promise<{ code: number; json: { plan: unknown; figures: { threads: number }[] }; err: string }> {
  const io = bufferIO();
  const code = await run([...argv, '--time', '20ms', '--rounds', '1', '--json', '-'], io);
  return { code, json: JSON.parse(io.out()), err: io.err() };
}

describe('ratelab bench threads COUNTS', () => {
  it('runs the thread bench: the JSON on stdout, the report on stderr, no deprecation line', async () => {
    const { code, json, err } = await threadBench(['bench', 'threads', '1']);
    expect(code).toBe(0);
    expect(json.plan).toEqual({
      threads: [1],
      algorithm: 'token-bucket',
      keyCounts: [1, 10_000],
      timeMs: 20,
      rounds: 1,
    });
    expect(new Set(json.figures.map((figure) => figure.threads))).toEqual(new Set([1]));
    expect(err).toContain('machine: ');
    expect(err).not.toContain('deprecated');
  }, 60_000);

  it('bench --threads COUNTS runs the same plan, then says on stderr what to type instead', async () => {
    const { code, json, err } = await threadBench(['bench', '--threads', '1']);
    expect(code).toBe(0);
    expect(json.plan).toEqual({
      threads: [1],
      algorithm: 'token-bucket',
      keyCounts: [1, 10_000],
      timeMs: 20,
      rounds: 1,
    });
    expect(err.endsWith(THREADS_DEPRECATED)).toBe(true);
  }, 60_000);

  it("bench --threads keeps ignoring the flags of bench's own run, as it always did (--csv writes nothing)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratelab-threads-'));
    try {
      const { code } = await threadBench(['bench', '--threads', '1', '--csv', join(dir, 'out.csv')]);
      expect(code).toBe(0);
      expect(readdirSync(dir)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it.each([
    // argv, the field the error names, why
    [['bench', 'threads', '0'], 'COUNTS', 'the new spelling names its argument'],
    [['bench', '--threads', '0'], '--threads', 'the old one its flag, and a failed run prints its error alone'],
    [
      ['bench', 'threads', '1', '--json', 'out.json', '--csv', 'out.csv'],
      "unknown option '--csv'",
      'bench threads writes JSON only',
    ],
  ])('%j: exit 2, one line naming %s (%s)', async (argv, field) => {
    const io = bufferIO();
    expect(await run(argv, io)).toBe(2);
    expect(io.err().trim().split('\n')).toHaveLength(1);
    expect(io.err()).toContain(field);
  });
});

describeRedis('ratelab bench redis --redis URL', () => {
  const fixture = useRedisServer();

  it.each([
    // argv before the shared flags, the deprecation line, why
    [['bench', 'redis'], '', 'the subcommand'],
    [['bench'], REDIS_DEPRECATED, 'the old spelling: the same run, then the line'],
  ])(
    '%j: JSON of both in-flight levels on stdout, then %j on stderr (%s)',
    async (argv, deprecation) => {
      const io = bufferIO();
      expect(await run([...argv, '--redis', fixture.server.url, '--quick', '--rounds', '1', '--json'], io)).toBe(0);
      const json = JSON.parse(io.out()) as { levels: { inFlight: number }[] };
      expect(json.levels.map((level) => level.inFlight)).toEqual([50, 500]);
      expect(io.err()).toContain('50 in flight');
      if (deprecation === '') expect(io.err()).not.toContain('deprecated');
      else expect(io.err().endsWith(deprecation)).toBe(true);
    },
    60_000,
  );

  it('needs --redis: exit 2 naming it', async () => {
    const io = bufferIO();
    expect(await run(['bench', 'redis', '--quick'], io)).toBe(2);
    expect(io.err()).toContain('--redis <url>');
  });
});
