import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { checkTarget } from '../src/attack/target.js';
import { EXIT, exitCodeOf } from '../src/cli/exit-codes.js';
import { RatelabError, type RatelabErrorCode } from '../src/core/errors.js';
import { parseRedisTarget } from '../src/redis/client.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');

/** The codes of the `RatelabErrorCode` union, read from its source (a type has no runtime list). */
function declaredCodes(): string[] {
  const union = /export type RatelabErrorCode =([^;]+);/.exec(read('../src/core/errors.ts'))?.[1] ?? '';
  return [...union.matchAll(/'([A-Z_]+)'/g)].map((match) => match[1] as string);
}

/** The rows of docs/errors.md's table: code -> the exit column and the other columns. */
function documentedCodes(): Map<string, { raisedBy: string; exit: number; todo: string }> {
  const rows = new Map<string, { raisedBy: string; exit: number; todo: string }>();
  for (const line of read('../docs/errors.md').split('\n')) {
    const cells = /^\| `([A-Z_]+)` \|(.*)\|\s*(\d+)\s*\|(.*)\|$/.exec(line);
    if (cells)
      rows.set(cells[1] as string, {
        raisedBy: (cells[2] as string).trim(),
        exit: Number(cells[3]),
        todo: (cells[4] as string).trim(),
      });
  }
  return rows;
}

describe('docs/errors.md documents every error code', () => {
  const declared = declaredCodes();
  const documented = documentedCodes();

  it('reads the codes (the union is where this test looks for them)', () => {
    expect(declared).toContain('INVALID_POLICY');
    expect(declared).toContain('MISSING_DEPENDENCY');
    expect(new Set(declared).size).toBe(declared.length);
  });

  it.each(declared.map((code) => [code]))('%s has a row saying what raises it and what to do', (code) => {
    const row = documented.get(code);
    expect(row, `${code} is missing from the table in docs/errors.md`).toBeDefined();
    expect(row?.raisedBy.length).toBeGreaterThan(10);
    expect(row?.todo.length).toBeGreaterThan(5);
  });

  it.each(declared.map((code) => [code]))('%s: the exit code in the table is the one the CLI maps it to', (code) => {
    expect(documented.get(code)?.exit).toBe(exitCodeOf(code as RatelabErrorCode));
  });

  it('documents no code that does not exist', () => {
    expect([...documented.keys()].filter((code) => !declared.includes(code))).toEqual([]);
  });

  it('is linked from the README', () => {
    expect(read('../README.md')).toContain('(docs/errors.md)');
  });

  it('services out of reach exit 3, everything else refused exits 2', () => {
    expect(exitCodeOf('REDIS_UNAVAILABLE')).toBe(EXIT.UNAVAILABLE);
    expect(exitCodeOf('ENDPOINT_UNAVAILABLE')).toBe(EXIT.UNAVAILABLE);
    expect(exitCodeOf('MISSING_DEPENDENCY')).toBe(EXIT.BAD_INPUT);
    expect(exitCodeOf('REMOTE_TARGET')).toBe(EXIT.BAD_INPUT);
  });
});

describe('the loopback rule: one code and one message shape for attack targets and Redis URLs', () => {
  const refuse = async (attempt: () => unknown): Promise<RatelabError> => {
    try {
      await attempt();
    } catch (error) {
      if (error instanceof RatelabError) return error;
      throw error;
    }
    throw new Error('not refused');
  };

  it.each([
    [
      'an attack target (IPv4)',
      () => checkTarget('http://192.0.2.10/', false),
      'URL',
      'URL: 192.0.2.10 is not a loopback address',
    ],
    [
      'an attack target (IPv6)',
      () => checkTarget('http://[2001:db8::1]:8080/', false),
      'URL',
      'URL: [2001:db8::1]:8080 is not a loopback address',
    ],
    [
      'a Redis URL',
      () => parseRedisTarget('redis://10.1.2.3:6379', false),
      'redis',
      '--redis: 10.1.2.3 is not a loopback address',
    ],
    [
      'a Redis URL by name',
      () => parseRedisTarget('redis://cache.example:6379/0', false),
      'redis',
      '--redis: cache.example is not a loopback address',
    ],
    [
      'one Sentinel of a redis+sentinel:// URL',
      () => parseRedisTarget('redis+sentinel://127.0.0.1:26379,10.0.0.5:26379/mymaster', false),
      'redis',
      '--redis: 10.0.0.5 is not a loopback address',
    ],
    [
      'one Sentinel of { sentinels, name }',
      () =>
        parseRedisTarget(
          {
            sentinels: [
              { host: '::1', port: 26379 },
              { host: 'sentinel.example', port: 26379 },
            ],
            name: 'mymaster',
          },
          false,
        ),
      'redis',
      '--redis: sentinel.example is not a loopback address',
    ],
  ])('%s is refused with REMOTE_TARGET', async (_what, attempt, field, start) => {
    const error = await refuse(attempt);
    expect(error.code).toBe('REMOTE_TARGET');
    expect(error.field).toBe(field);
    expect(error.message).toBe(`${start}; pass --allow-remote to use a host that is not this machine on purpose`);
  });

  it.each([
    ['an attack target', () => checkTarget('http://192.0.2.10/', true)],
    ['a Redis URL', () => parseRedisTarget('redis://10.1.2.3:6379', true)],
    ['localhost', () => parseRedisTarget('redis://localhost:6379', false)],
    ['remote Sentinels', () => parseRedisTarget('redis+sentinel://10.0.0.5:26379,10.0.0.6:26379/mymaster', true)],
    ['a loopback attack target', () => checkTarget('http://127.0.0.2:9/', false)],
  ])('%s is accepted with allowRemote (or when it is this machine)', async (_what, attempt) => {
    await expect(Promise.resolve().then(() => attempt() as unknown)).resolves.toBeTruthy();
  });
});
