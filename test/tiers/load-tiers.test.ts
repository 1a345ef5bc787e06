import { describe, expect, it } from 'vitest';
import { loadTiers, parseTiers } from '../../src/tiers/load-tiers.js';
import type { TiersConfig } from '../../src/tiers/types.js';
import { expectRatelabError } from '../support/errors.js';
import { tiersFixture as fixture } from '../support/fixtures.js';

const VALID: TiersConfig = {
  tiers: {
    free: { algorithm: 'token-bucket', policy: { limit: 10, windowMs: 1000 } },
    premium: { algorithm: 'token-bucket', policy: { limit: 100, windowMs: 1000, burst: 200 } },
    reports: { algorithm: 'sliding-log', policy: { limit: 5, windowMs: 60_000 } },
    internal: 'unlimited',
  },
  clients: { acme: 'premium', 'ops-bot': 'internal', auditor: 'reports' },
  default: 'free',
};

const LIMIT_MESSAGE = (got: string) => `expected a positive integer up to 4294967295, got ${got}`;
const DURATION_MESSAGE = (got: string) => `expected a duration such as 250ms, 1s, 1m or 1h, got ${got}`;

describe('loadTiers: valid files', () => {
  it('reads YAML', () => {
    expect(loadTiers(fixture('valid.yaml'))).toEqual(VALID);
  });

  it('reads JSON, durations as text or milliseconds', () => {
    expect(loadTiers(fixture('valid.json'))).toEqual(VALID);
  });

  it('reads a tier of several limits: the algorithm on the tier or per entry, burst and name per entry', () => {
    expect(loadTiers(fixture('composite.yaml')).tiers).toEqual({
      free: { algorithm: 'token-bucket', policy: { limit: 10, windowMs: 1000 } },
      pro: {
        algorithm: 'token-bucket',
        policy: [
          { limit: 10, windowMs: 1000 },
          { limit: 10_000, windowMs: 86_400_000, algorithm: 'sliding-counter', name: 'daily' },
        ],
      },
      // No tier algorithm: each entry has its own, and the first's stands for the tier.
      mixed: {
        algorithm: 'gcra',
        policy: [
          { limit: 5, windowMs: 1000, burst: 10, algorithm: 'gcra' },
          { limit: 100, windowMs: 60_000, algorithm: 'sliding-log' },
        ],
      },
    });
  });

  it('reads a tier mode: shadow or enforce (the default, left out of the spec)', () => {
    expect(loadTiers(fixture('shadow.yaml')).tiers).toEqual({
      enforced: { algorithm: 'fixed-window', policy: { limit: 10, windowMs: 3_600_000 } },
      trial: { algorithm: 'fixed-window', policy: { limit: 10, windowMs: 3_600_000 }, mode: 'shadow' },
    });
    const listed = parseTiers(
      'tiers:\n  t: { algorithm: gcra, mode: enforce, limits: [{ limit: 1, window: 1s }] }\ndefault: t\n',
    );
    expect(listed.tiers.t).toEqual({ algorithm: 'gcra', policy: [{ limit: 1, windowMs: 1000 }], mode: 'enforce' });
  });

  it('refuses any other mode, naming the tier', () => {
    const error = expectRatelabError(
      () =>
        parseTiers(
          'tiers:\n  trial: { algorithm: gcra, limit: 1, window: 1s, mode: dry-run }\ndefault: trial\n',
          't.yaml',
        ),
      'INVALID_TIERS',
    );
    expect(error.problems).toEqual(['t.yaml:2: tiers.trial.mode: expected one of enforce, shadow, got "dry-run"']);
  });

  it('takes clients as optional', () => {
    expect(loadTiers(fixture('minimal.yaml'))).toEqual({
      tiers: { only: { algorithm: 'gcra', policy: { limit: 3, windowMs: 250 } } },
      clients: {},
      default: 'only',
    });
  });
});

describe('loadTiers: each kind of invalid file is INVALID_TIERS, every problem with its line and path', () => {
  it.each([
    ['bad-limit.yaml', [`4: tiers.free.limit: ${LIMIT_MESSAGE('-3')}`]],
    ['bad-duration.yaml', [`5: tiers.free.window: ${DURATION_MESSAGE('"1 fortnight"')}`]],
    [
      'unknown-algorithm.yaml',
      [
        '3: tiers.free.algorithm: expected one of token-bucket, gcra, sliding-log, sliding-counter, fixed-window, got "leaky-bucket"',
      ],
    ],
    [
      'unknown-field.yaml',
      ['6: tiers.free.burts: unknown field; expected one of algorithm, limit, window, burst, limits, mode'],
    ],
    [
      'burst-ignored.yaml',
      [
        '6: tiers.api.burst: fixed-window ignores burst (only token-bucket and gcra have a bucket capacity); remove it or pick one of those',
        '11: tiers.reports.burst: sliding-log ignores burst (only token-bucket and gcra have a bucket capacity); remove it or pick one of those',
        '16: tiers.search.burst: sliding-counter ignores burst (only token-bucket and gcra have a bucket capacity); remove it or pick one of those',
      ],
    ],
    ['default-missing-tier.yaml', ['6: default: no tier named "gold" (tiers: free)']],
    ['client-missing-tier.yaml', ['8: clients.globex: no tier named "platinum" (tiers: free)']],
    ['syntax-error.yaml', ['5: Flow sequence in block collection must be sufficiently indented and end with a ]']],
    [
      'many-problems.yaml',
      [
        `4: tiers.free.limit: ${LIMIT_MESSAGE('0')}`,
        `5: tiers.free.window: ${DURATION_MESSAGE('"soon"')}`,
        `10: tiers.premium.burst: ${LIMIT_MESSAGE('1.5')}`,
        '13: tiers.logs.limit: the sliding log keeps one timestamp per admitted request, so a limit of 2000000 would need 16 MiB per key; the most it takes is 1048576 (use sliding-counter for large limits)',
        '15: tiers.odd: expected "unlimited", { algorithm, limit, window, burst? } or { algorithm?, limits: [...] }, got "sometimes"',
        '19: tiers.bulk.window: token-bucket with a capacity of 4000000000 is exact up to a window of 2251799 ms (2251.799s), got 86400000; use a shorter window with a proportionally smaller limit',
        '22: clients.globex: no tier named "gold" (tiers: free, premium, logs, odd, bulk)',
        '23: default: no tier named "platinum" (tiers: free, premium, logs, odd, bulk)',
        '24: colour: unknown field; expected one of tiers, clients, default',
      ],
    ],
    [
      'composite-problems.yaml',
      [
        '4: tiers.both.limit: not with limits: a tier has either limit, window and burst or a limits list (move it into an entry)',
        '5: tiers.both.window: not with limits: a tier has either limit, window and burst or a limits list (move it into an entry)',
        `12: tiers.pro.limits[1].window: ${DURATION_MESSAGE('"1 fortnight"')}`,
        '17: tiers.twice.limits[1].name: "burst" is already the name of limits[0]; give each limit its own name',
        '20: tiers.empty.limits: expected 1 to 16 limits, got an empty list',
        '24: tiers.orphan.limits[1].algorithm: missing (give the tier an algorithm, or each limit its own)',
        '28: tiers.ignored.limits[0].burst: sliding-log ignores burst (only token-bucket and gcra have a bucket capacity); remove it or pick one of those',
        '29: tiers.ignored.limits[1].colour: unknown field; expected one of algorithm, limit, window, burst, name',
      ],
    ],
    [
      'many-problems.json',
      [
        `3: tiers.free.limit: ${LIMIT_MESSAGE('"10"')}`,
        '4: tiers.premium.limit: missing',
        '6: default: no tier named "gold" (tiers: free, premium)',
      ],
    ],
  ])('%s', (name, problems) => {
    const path = fixture(name);
    const error = expectRatelabError(() => loadTiers(path), 'INVALID_TIERS', path);
    expect(error.problems).toEqual(problems.map((problem) => `${path}:${problem}`));
    const more =
      problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
    expect(error.message).toBe(`${path}:${problems[0]}${more}`);
  });

  it('a missing file is FILE_NOT_FOUND naming it', () => {
    const path = fixture('no-such-file.yaml');
    expect(expectRatelabError(() => loadTiers(path), 'FILE_NOT_FOUND', path).message).toBe(`${path}: no such file`);
  });

  it('a directory is FILE_UNREADABLE naming it', () => {
    const path = fixture('');
    expectRatelabError(() => loadTiers(path), 'FILE_UNREADABLE', path);
  });
});

describe('parseTiers: the shape of the file', () => {
  it.each([
    ['an empty file', '', ['t: expected a map with the keys tiers, clients and default, got an empty file']],
    ['a list', '[]\n', ['t:1: expected a map with the keys tiers, clients and default, got a list']],
    ['no tiers', 'tiers: {}\ndefault: x\n', ['t:1: tiers: expected at least one tier']],
    ['no default', 'tiers:\n  a: unlimited\n', ['t:1: default: missing']],
    [
      'wrong types',
      'tiers: 5\ndefault: a\nclients: 3\n',
      [
        't:1: tiers: expected a map of tier name to tier, got 5',
        't:3: clients: expected a map of client id to tier name, got 3',
      ],
    ],
    ['a duplicated key', 'tiers:\n  a: unlimited\ndefault: a\ndefault: a\n', ['t:4: Map keys must be unique']],
  ])('%s', (_name, text, problems) => {
    expect(expectRatelabError(() => parseTiers(text, 't'), 'INVALID_TIERS', 't').problems).toEqual(problems);
  });
});
