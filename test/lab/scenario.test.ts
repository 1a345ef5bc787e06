import { describe, expect, it } from 'vitest';
import { RatelabError } from '../../src/core/errors.js';
import { builtinScenarios, resolveScenario } from '../../src/scenario/builtins.js';
import { parseScenario, withOverrides } from '../../src/scenario/load-scenario.js';

const VALID = `name: tiny
description: one line
policy: { limit: 10, window: 1s }
duration: 2s
seed: 3
sources:
  - kind: steady
    rate: 5/s
`;

function problemsOf(text: string): readonly string[] {
  try {
    parseScenario(text, 's.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(RatelabError);
    expect((error as RatelabError).code).toBe('INVALID_SCENARIO');
    return (error as RatelabError).problems;
  }
  throw new Error('expected the scenario to be refused');
}

describe('parseScenario', () => {
  it('normalises a valid file: ms durations, rates per ms, default key, cost and bucket', () => {
    const scenario = parseScenario(VALID, 's.yaml');
    expect(scenario).toMatchObject({
      name: 'tiny',
      policy: { limit: 10, windowMs: 1000 },
      durationMs: 2000,
      seed: 3,
      bucketMs: 34,
    });
    expect(scenario.sources[0]).toEqual({
      kind: 'steady',
      keys: { count: 1, prefix: 'client', pick: 'round-robin', exponent: 1 },
      cost: 1,
      startMs: 0,
      endMs: 2000,
      ratePerMs: 0.005,
    });
  });

  it('repeats a burst until the end of the scenario when only `every` is given', () => {
    const scenario = parseScenario(
      VALID.replace(/sources:[\s\S]*/, 'sources:\n  - { kind: burst, at: 100ms, count: 3, every: 500ms }\n'),
    );
    expect(scenario.sources[0]).toMatchObject({ atMs: 100, everyMs: 500, times: 4 });
  });

  it.each([
    [
      'a negative limit',
      VALID.replace('limit: 10', 'limit: -3'),
      's.yaml:3: policy.limit: expected a positive integer up to 4294967295, got -3',
    ],
    [
      'a bad rate',
      VALID.replace('rate: 5/s', 'rate: fast'),
      's.yaml:8: sources[0].rate: expected a rate such as 50 (per second), 50/s, 3000/m or 2/ms, got "fast"',
    ],
    [
      'an unknown source kind',
      VALID.replace('kind: steady', 'kind: wave'),
      's.yaml:7: sources[0].kind: expected kind: steady, poisson, burst, onoff or retry, got "wave"',
    ],
    [
      'an unknown field',
      VALID.replace('seed: 3', 'seed: 3\ncolour: red'),
      's.yaml:6: colour: unknown field; expected one of name, description, policy, duration, seed, bucket, sources',
    ],
    ['a missing field', VALID.replace('duration: 2s\n', ''), 's.yaml:1: duration: missing'],
    [
      'a bad duration',
      VALID.replace('duration: 2s', 'duration: soon'),
      's.yaml:4: duration: expected a duration such as 250ms, 1s, 1m or 1h, got "soon"',
    ],
    [
      'start after end',
      VALID.replace('rate: 5/s', 'rate: 5/s\n    start: 3s'),
      's.yaml:9: sources[0].start: start (3000 ms) must come before end (2000 ms)',
    ],
    [
      'a bad name',
      VALID.replace('name: tiny', 'name: Tiny Thing'),
      's.yaml:1: name: expected lower-case letters, digits and dashes, got "Tiny Thing"',
    ],
    [
      'an empty file',
      '',
      's.yaml: expected a map with the keys name, description, policy, duration, seed, bucket and sources, got an empty file',
    ],
    [
      'broken YAML',
      'name: [unclosed\n',
      's.yaml:2: Flow sequence in block collection must be sufficiently indented and end with a ]',
    ],
  ])('reports %s with its file, line and field', (_what, text, expected) => {
    expect(problemsOf(text)[0]).toBe(expected);
  });

  it.each([
    [
      'a top-level field',
      'seed: 3',
      'seed: 3\nseeds: 4',
      ['s.yaml:6: seeds: unknown field; expected one of name, description, policy, duration, seed, bucket, sources'],
    ],
    [
      'a policy field',
      'window: 1s',
      'window: 1s, burts: 5',
      ['s.yaml:3: policy.burts: unknown field; expected one of limit, window, burst'],
    ],
    [
      'a field of a steady source (with the rate it should have been)',
      'rate: 5/s',
      'rat: 5/s',
      [
        's.yaml:7: sources[0].rate: missing',
        's.yaml:8: sources[0].rat: unknown field; expected one of kind, keys, cost, label, start, end, rate',
      ],
    ],
    [
      'a field of a key set',
      'rate: 5/s',
      'rate: 5/s\n    keys: { count: 3, pick: zipf, exponnent: 2 }',
      ['s.yaml:9: sources[0].keys.exponnent: unknown field; expected one of count, prefix, pick, exponent'],
    ],
    [
      'a field of a retry backoff',
      'kind: steady\n    rate: 5/s',
      'kind: retry\n    clients: 2\n    backoff: { base: 100ms, cop: 1s }',
      ['s.yaml:9: sources[0].backoff.cop: unknown field; expected one of base, cap, jitter'],
    ],
  ])('an unknown field in %s lists the fields that are valid there', (_what, from, to, expected) => {
    expect(problemsOf(VALID.replace(from, to))).toEqual(expected);
  });

  const RETRY = VALID.replace('kind: steady\n    rate: 5/s', 'kind: retry\n    clients: 2');
  it.each([
    [
      'honourRetryAfter: false without a backoff',
      'clients: 2',
      'clients: 2\n    honourRetryAfter: false',
      's.yaml:7: sources[0].backoff: missing (needed with honourRetryAfter: false: the clients must wait somehow)',
    ],
    [
      'an adaptive client that is also throttled',
      'clients: 2',
      'clients: 2\n    client: adaptive\n    throttle: { limit: 5, window: 1s }',
      's.yaml:10: sources[0].throttle: not with client: adaptive (the adaptive client paces and backs off by itself)',
    ],
    [
      'a client kind that does not exist',
      'clients: 2',
      'clients: 2\n    client: clever',
      's.yaml:9: sources[0].client: expected adaptive, got "clever"',
    ],
    [
      'a cap below the base',
      'clients: 2',
      'clients: 2\n    backoff: { base: 1s, cap: 500ms }',
      's.yaml:9: sources[0].backoff.cap: expected at least base (1000 ms), got 500 ms',
    ],
    [
      'an unknown jitter',
      'clients: 2',
      'clients: 2\n    backoff: { jitter: some }',
      's.yaml:9: sources[0].backoff.jitter: expected none, full, equal or decorrelated, got "some"',
    ],
    [
      'a label with spaces',
      'clients: 2',
      'clients: 2\n    label: bad actor',
      's.yaml:9: sources[0].label: expected a label of up to 32 letters, digits, dots, dashes and underscores, got "bad actor"',
    ],
  ])('a retry source with %s is refused', (_what, from, to, expected) => {
    expect(problemsOf(RETRY.replace(from, to))).toEqual([expected]);
  });

  it('a backoff takes base 100ms, cap 10s and full jitter by default', () => {
    const scenario = parseScenario(RETRY.replace('clients: 2', 'clients: 2\n    backoff: {}'), 's.yaml');
    expect(scenario.sources[0]).toMatchObject({
      honourRetryAfter: true,
      backoff: { baseMs: 100, capMs: 10_000, jitter: 'full' },
    });
  });

  it('reports every problem of a file at once', () => {
    const text = VALID.replace('limit: 10', 'limit: 0').replace('rate: 5/s', 'rate: -1').replace('seed: 3', 'seed: x');
    expect(problemsOf(text)).toHaveLength(3);
  });
});

describe('built-in scenarios', () => {
  const builtins = builtinScenarios();

  it('are all valid, uniquely named, with a one-line description', () => {
    expect(builtins.length).toBeGreaterThanOrEqual(10);
    expect(new Set(builtins.map((s) => s.name)).size).toBe(builtins.length);
    for (const s of builtins) expect(s.description).not.toMatch(/\n/);
  });

  it('cover every traffic building block the lab promises', () => {
    const kinds = new Set(builtins.flatMap((s) => s.sources.map((source) => source.kind)));
    expect([...kinds].sort()).toEqual(['burst', 'onoff', 'poisson', 'retry', 'steady']);
    const zipf = builtins.find((s) => s.name === 'zipf-many-keys');
    expect(zipf?.sources[0]?.keys).toMatchObject({ count: 100_000, pick: 'zipf' });
    const retries = builtins.flatMap((s) => s.sources).filter((source) => source.kind === 'retry');
    const storms = retries.filter(
      (source) => source.backoff === undefined && source.throttle === undefined && source.client === undefined,
    );
    expect(storms.map((source) => source.jitter).sort()).toEqual([0, 0, 1, 1, 1]);
    const adaptive = retries.filter((source) => source.client === 'adaptive');
    expect(adaptive.map((source) => source.label)).toEqual(['adaptive']);
    const throttled = retries.filter((source) => source.throttle !== undefined);
    expect(throttled.map((source) => [source.label, source.throttle])).toEqual([
      ['throttled', { limit: 100, windowMs: 1000 }],
    ]);
    const backoffs = retries.filter((source) => source.backoff !== undefined);
    expect(backoffs.map((source) => [source.label, source.backoff?.jitter, source.honourRetryAfter])).toEqual([
      ['none', 'none', false],
      ['full', 'full', false],
      ['equal', 'equal', false],
      ['decorrelated', 'decorrelated', false],
      ['backoff', 'decorrelated', false],
    ]);
  });

  it('resolve by name', () => {
    expect(resolveScenario('edge-attack', process.cwd(), builtins).name).toBe('edge-attack');
  });

  it.each([
    ['edge-atack', 'unknown scenario "edge-atack"; did you mean edge-attack?'],
    ['Poisson', 'unknown scenario "Poisson"; did you mean poisson?'],
    ['retry-storm-jiter', 'unknown scenario "retry-storm-jiter"; did you mean retry-storm-jitter?'],
    ['fleat', 'unknown scenario "fleat"; did you mean fleet?'],
    ['nothing-like-it', /^unknown scenario "nothing-like-it": expected a file or one of steady-under, steady-over, /],
  ])('an unknown name %s suggests the nearest built-in, or lists them all when none is near', (name, message) => {
    expect(() => resolveScenario(name, process.cwd(), builtins)).toThrow(message);
  });

  it('take policy and seed overrides field by field', () => {
    const edge = resolveScenario('edge-attack', process.cwd(), builtins);
    const changed = withOverrides(edge, { limit: 7, seed: 99 });
    expect(changed.policy).toEqual({ limit: 7, windowMs: 1000 });
    expect(changed.seed).toBe(99);
    expect(edge.policy.limit).toBe(100);
  });
});
