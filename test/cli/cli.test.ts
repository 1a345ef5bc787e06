import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { algorithmsCommand } from '../../src/cli/commands/algorithms.js';
import { checkTiersCommand } from '../../src/cli/commands/check-tiers.js';
import { bufferIO } from '../../src/report/io.js';
import { run } from '../../src/cli/main.js';
import { ALGORITHMS, RatelabError } from '../../src/index.js';
import { tiersFixture as fixture } from '../support/fixtures.js';

const VALID_SUMMARY = [
  'free (default): token-bucket, 10 per 1s; 0 clients assigned',
  'premium: token-bucket, 100 per 1s, burst 200; 1 client assigned',
  'reports: sliding-log, 5 per 1m; 1 client assigned',
  'internal: unlimited; 1 client assigned',
  '',
].join('\n');

/** True when some line looks like a stack frame. */
const hasStack = (text: string) => /^\s+at /m.test(text);

describe('ratelab check-tiers', () => {
  it('summarises a valid file (command function)', async () => {
    const io = bufferIO();
    expect(await checkTiersCommand({ file: fixture('valid.yaml') }, io)).toBe(0);
    expect(io.out()).toBe(VALID_SUMMARY);
    expect(io.err()).toBe('');
  });

  it('summarises a tier of several limits joined by +, a name shown when it is not the window', async () => {
    const io = bufferIO();
    expect(await checkTiersCommand({ file: fixture('composite.yaml') }, io)).toBe(0);
    expect(io.out()).toBe(
      [
        'free (default): token-bucket, 10 per 1s; 0 clients assigned',
        'pro: token-bucket 10/1s + sliding-counter 10000/1d (daily); 1 client assigned',
        'mixed: gcra 5/1s burst 10 + sliding-log 100/1m; 0 clients assigned',
        '',
      ].join('\n'),
    );
  });

  it('says which tiers are in shadow, in the text and the JSON', async () => {
    const io = bufferIO();
    expect(await checkTiersCommand({ file: fixture('shadow.yaml') }, io)).toBe(0);
    expect(io.out()).toBe(
      [
        'enforced (default): fixed-window, 10 per 1h; 0 clients assigned',
        'trial (shadow): fixed-window, 10 per 1h; 1 client assigned',
        '',
      ].join('\n'),
    );
    const json = bufferIO();
    expect(await run(['check-tiers', fixture('shadow.yaml'), '--json'], json)).toBe(0);
    const { tiers } = JSON.parse(json.out()) as { tiers: { mode: string }[] };
    expect(tiers.map((tier) => tier.mode)).toEqual(['enforce', 'shadow']);
  });

  it('writes the summary as JSON with --json: each limit named, windows in ms, capacity resolved', async () => {
    const io = bufferIO();
    expect(await run(['check-tiers', fixture('composite.yaml'), '--json'], io)).toBe(0);
    const { tiers } = JSON.parse(io.out()) as { tiers: unknown[] };
    expect(tiers[1]).toEqual({
      name: 'pro',
      default: false,
      mode: 'enforce',
      clients: 1,
      limits: [
        { name: '1s', algorithm: 'token-bucket', limit: 10, windowMs: 1000, capacity: 10 },
        { name: 'daily', algorithm: 'sliding-counter', limit: 10_000, windowMs: 86_400_000, capacity: 10_000 },
      ],
    });
    expect(tiers[0]).toMatchObject({ name: 'free', default: true, limits: [{ name: '1s', limit: 10 }] });
  });

  it('resolves the file against the working directory', async () => {
    const io = bufferIO({ cwd: dirname(fixture('valid.json')) });
    expect(await checkTiersCommand({ file: 'valid.json' }, io)).toBe(0);
    expect(io.out()).toBe(VALID_SUMMARY);
  });

  it('throws a RatelabError for an invalid file, leaving stdout empty (command function)', async () => {
    const io = bufferIO();
    await expect(checkTiersCommand({ file: fixture('bad-limit.yaml') }, io)).rejects.toBeInstanceOf(RatelabError);
    expect(io.out()).toBe('');
  });

  it('exits 0 with the summary through run()', async () => {
    const io = bufferIO();
    expect(await run(['check-tiers', fixture('valid.yaml')], io)).toBe(0);
    expect(io.out()).toBe(VALID_SUMMARY);
  });

  it('exits 2 with one line per problem on stderr and no stack trace', async () => {
    const io = bufferIO();
    const path = fixture('many-problems.yaml');
    expect(await run(['check-tiers', path], io)).toBe(2);
    const lines = io.err().trimEnd().split('\n');
    expect(lines).toHaveLength(9);
    expect(lines[0]).toBe(`ratelab: ${path}:4: tiers.free.limit: expected a positive integer up to 4294967295, got 0`);
    for (const line of lines)
      expect(line).toMatch(new RegExp(`^ratelab: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+: `));
    expect(hasStack(io.err())).toBe(false);
    expect(io.out()).toBe('');
  });

  it('names the file as it was given, not as an absolute path (the README shows its output)', async () => {
    const io = bufferIO({ cwd: dirname(fixture('many-problems.yaml')) });
    expect(await run(['check-tiers', 'many-problems.yaml'], io)).toBe(2);
    expect(io.err().split('\n')[0]).toBe(
      'ratelab: many-problems.yaml:4: tiers.free.limit: expected a positive integer up to 4294967295, got 0',
    );
    const missing = bufferIO({ cwd: dirname(fixture('many-problems.yaml')) });
    expect(await run(['check-tiers', 'no-such.yaml'], missing)).toBe(2);
    expect(missing.err()).toBe('ratelab: no-such.yaml: no such file\n');
  });

  it('exits 2 on burst given to the window algorithms, naming each field and why', async () => {
    const io = bufferIO();
    const path = fixture('burst-ignored.yaml');
    expect(await run(['check-tiers', path], io)).toBe(2);
    expect(io.err().trimEnd().split('\n')).toEqual(
      [
        [6, 'api', 'fixed-window'],
        [11, 'reports', 'sliding-log'],
        [16, 'search', 'sliding-counter'],
      ].map(
        ([line, tier, algorithm]) =>
          `ratelab: ${path}:${line}: tiers.${tier}.burst: ${algorithm} ignores burst (only token-bucket and gcra have a bucket capacity); remove it or pick one of those`,
      ),
    );
    expect(io.out()).toBe('');
  });

  it('exits 2 on a missing file, naming it on one line', async () => {
    const io = bufferIO();
    const path = fixture('absent.yaml');
    expect(await run(['check-tiers', path], io)).toBe(2);
    expect(io.err()).toBe(`ratelab: ${path}: no such file\n`);
  });

  it('exits 2 without a file argument', async () => {
    const io = bufferIO();
    expect(await run(['check-tiers'], io)).toBe(2);
    expect(io.err()).toContain("missing required argument 'file'");
    expect(hasStack(io.err())).toBe(false);
  });
});

describe('ratelab algorithms', () => {
  it('lists the five algorithms, one line each (command function)', async () => {
    const io = bufferIO();
    expect(await algorithmsCommand({}, io)).toBe(0);
    const lines = io.out().trimEnd().split('\n');
    expect(lines.map((line) => line.split(/\s+/)[0])).toEqual([...ALGORITHMS]);
    expect(lines[0]).toMatch(/^token-bucket {5}tokens \+ last refill per key/);
  });

  it('prints the same through run()', async () => {
    const direct = bufferIO();
    await algorithmsCommand({}, direct);
    const io = bufferIO();
    expect(await run(['algorithms'], io)).toBe(0);
    expect(io.out()).toBe(direct.out());
  });
});

describe('ratelab itself', () => {
  it('prints its version and exits 0', async () => {
    const io = bufferIO();
    expect(await run(['--version'], io)).toBe(0);
    const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    expect(io.out().trim()).toBe(version);
  });

  it('exits 2 with help when run without a command, and on an unknown command', async () => {
    const bare = bufferIO();
    expect(await run([], bare)).toBe(2);
    expect(bare.err()).toContain('check-tiers');
    const unknown = bufferIO();
    expect(await run(['chek-tiers'], unknown)).toBe(2);
    expect(unknown.err()).toContain('check-tiers');
  });
});
