import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../src/cli/exit-codes.js';
import { policyListFlag } from '../../src/cli/flags.js';
import { compareCommand } from '../../src/cli/commands/compare.js';
import { RatelabError } from '../../src/core/errors.js';
import { ALGORITHMS, type Algorithm, type PolicyInput } from '../../src/core/policy.js';
import { MetricsRecorder, limitWorstWindows } from '../../src/metrics/recorder.js';
import { bufferIO } from '../../src/report/io.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';
import { parseScenario, withOverrides } from '../../src/scenario/load-scenario.js';
import { compareWorkloads } from '../../src/sim/compare.js';
import { builtinContender } from '../../src/sim/contender.js';
import { scenarioWorkload } from '../../src/sim/workload.js';

const ROOT = join(import.meta.dirname, '../..');
const HOUR = 3_600_000;
const BURST_AND_HOUR = [
  { limit: 20, windowMs: 1000 },
  { limit: 1000, windowMs: HOUR },
];

function thrown(run: () => unknown): RatelabError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(RatelabError);
    return error as RatelabError;
  }
  throw new Error('expected a RatelabError');
}

describe('--policy LIMIT/WINDOW,...', () => {
  it.each<[string, PolicyInput, string]>([
    ['100/1m', { limit: 100, windowMs: 60_000 }, 'one entry is a single policy, as --limit 100 --window 1m'],
    ['20/1s,1000/1h', BURST_AND_HOUR, 'two entries are a composite, in the order given'],
    [' 20/1s , 1000/1h, ', BURST_AND_HOUR, 'blanks around entries and empty entries are dropped'],
    [
      '1e3/1h,5/250ms',
      [
        { limit: 1000, windowMs: HOUR },
        { limit: 5, windowMs: 250 },
      ],
      'limits take 1e3, windows ms',
    ],
  ])('%s', (value, expected, _why) => {
    expect(policyListFlag(value, ALGORITHMS)).toEqual(expected);
  });

  it.each<[string, readonly Algorithm[], string, string]>([
    ['20/1s,/1h', ALGORITHMS, '--policy entry 2 ("/1h"): expected LIMIT/WINDOW such as 20/1s', 'no limit'],
    [' , ', ALGORITHMS, '--policy: expected LIMIT/WINDOW entries', 'nothing but blanks'],
    ['20', ALGORITHMS, '--policy entry 1 ("20"): expected LIMIT/WINDOW', 'no window'],
    ['20/1s,0/1h', ALGORITHMS, '--policy entry 2 ("0/1h"): expected a whole number from 1', 'a limit below 1'],
    ['20/1s,1000/1x', ALGORITHMS, '--policy entry 2 ("1000/1x"): expected a duration', 'a bad window'],
    [
      '20/1s,30/1s',
      ALGORITHMS,
      '--policy entry 2 ("30/1s"): its window 1s is already that of entry 1',
      'two limits, one name',
    ],
    [
      '20/1s,2000000/1h',
      ['sliding-log'],
      '--policy entry 2 ("2000000/1h").limit: the sliding log keeps',
      'too large for an algorithm run',
    ],
    [
      Array.from({ length: 17 }, (_, i) => `1/${i + 1}s`).join(','),
      ALGORITHMS,
      '--policy: expected at most 16 limits, got 17',
      'more than 16',
    ],
  ])('%s is refused naming the entry (%s)', (value, algorithms, message, _why) => {
    const error = thrown(() => policyListFlag(value, algorithms));
    expect(error.message.startsWith(message)).toBe(true);
    expect(exitCodeOf(error.code)).toBe(2);
  });
});

describe('the oracle of a composite: the conjunction of exact sliding logs, one per limit', () => {
  /** 2 per 100 ms and 3 per 1000 ms; each step below is one request of cost 1 on one key. */
  const twoLimits = () =>
    new MetricsRecorder({
      limit: 2,
      windowMs: 100,
      limits: [
        { name: 'short', limit: 2, windowMs: 100 },
        { name: 'long', limit: 3, windowMs: 1000 },
      ],
      bucketMs: 100,
    });

  it('admits only what every limit admits, and what it denies counts in no window', () => {
    const recorder = twoLimits();
    const steps = [
      { t: 0, exact: true, why: 'both empty' },
      { t: 10, exact: true, why: 'short 2 of 2, long 2 of 3' },
      { t: 20, exact: false, why: 'short is full (2 in (-80, 20])' },
      { t: 100, exact: true, why: 'short: t=0 left (0, 100]; long 3 of 3' },
      { t: 200, exact: false, why: 'short has room, long is full (3 in (-800, 200])' },
      { t: 1000, exact: true, why: 'long: t=0 left (0, 1000]; the denials at 20 and 200 took nothing' },
      { t: 1001, exact: false, why: 'long: 10, 100 and 1000 fill it' },
    ];
    // The limiter under test denies everything, so the windows hold only what the oracle admitted.
    const verdicts = steps.map(({ t }) => {
      const exact = recorder.offer(t, 'k', 1);
      recorder.decide(0, false);
      recorder.commit();
      return exact;
    });
    expect(verdicts).toEqual(steps.map((step) => step.exact));
  });

  it('counts false admits and denials of a limiter against the conjunction', () => {
    const recorder = twoLimits();
    // A limiter enforcing only the short limit: admits at 200 what the long limit denies.
    for (const [t, allowed] of [
      [0, true],
      [10, true],
      [100, true],
      [200, true],
    ] as const)
      recorder.record(t, 'k', 1, allowed);
    const m = recorder.result();
    expect({ falseAdmits: m.falseAdmits, falseDenials: m.falseDenials }).toEqual({ falseAdmits: 1, falseDenials: 0 });
    expect(m.limits.map((l) => [l.name, l.ratio])).toEqual([
      ['short', 1],
      ['long', 4 / 3],
    ]);
    // The row's worst window is the worst limit's.
    expect(m.worstWindowRatio).toBe(4 / 3);
    expect(m.worstWindow).toEqual({ key: 'k', endMs: 200, units: 4 });
  });
});

describe('limitWorstWindows', () => {
  it.each([
    {
      admitted: [0, 1, 2, 500, 999, 1000, 1001],
      expected: [
        ['1s', 5 / 4, 999],
        ['10s', 7 / 10, 1001],
      ],
      why: 'five in (-1, 999]; all seven in ten seconds',
    },
    {
      admitted: [0, 1000, 2000, 3000],
      expected: [
        ['1s', 1 / 4, 0],
        ['10s', 4 / 10, 3000],
      ],
      why: 'a request leaves the 1s window (t - 1000, t] exactly 1000 ms later',
    },
  ])('each limit over its own window: $why', ({ admitted, expected }) => {
    const windows = limitWorstWindows(
      admitted.map((t) => ({ t, key: 'k', cost: 1 })),
      [
        { name: '1s', limit: 4, windowMs: 1000 },
        { name: '10s', limit: 10, windowMs: 10_000 },
      ],
    );
    expect(windows.map((w) => [w.name, w.ratio, w.worstWindow?.endMs])).toEqual(expected);
  });

  it('is empty for no limits, and 0 for nothing admitted', () => {
    expect(limitWorstWindows([], [])).toEqual([]);
    expect(limitWorstWindows([], [{ name: '1s', limit: 4, windowMs: 1000 }])).toEqual([
      { name: '1s', limit: 4, windowMs: 1000, ratio: 0, worstWindow: null },
    ]);
  });
});

describe('scenario policy lists', () => {
  const FILE = (policy: string) => `name: tiny
description: one line
policy: ${policy}
duration: 2s
seed: 3
sources:
  - kind: steady
    rate: 5/s
`;

  it('reads a list as a composite, named by window unless named', () => {
    const scenario = parseScenario(FILE('[{ limit: 20, window: 1s }, { limit: 1000, window: 1h, name: hourly }]'));
    expect(scenario.policy).toEqual({ limit: 20, windowMs: 1000 });
    expect(scenario.limits).toEqual([
      { limit: 20, windowMs: 1000 },
      { limit: 1000, windowMs: HOUR, name: 'hourly' },
    ]);
  });

  it('reads a list of one as that one policy', () => {
    const scenario = parseScenario(FILE('[{ limit: 20, window: 1s }]'));
    expect([scenario.policy, scenario.limits]).toEqual([{ limit: 20, windowMs: 1000 }, undefined]);
  });

  it.each([
    [
      '[{ limit: 20, window: 1s }, { limit: 30, window: 1s }]',
      's.yaml:3: policy[1].name: "1s" is already the name of policy[0]',
    ],
    ['[]', 'policy: expected at least one limit'],
    ['[{ limit: 20, window: 1s, name: "a b" }]', 's.yaml:3: policy[0].name: expected 1 to 64 letters'],
  ])('refuses %s naming the entry', (policy, expected) => {
    const error = thrown(() => parseScenario(FILE(policy), 's.yaml'));
    expect(error.problems.some((problem) => problem.includes(expected))).toBe(true);
  });

  it('takes a new policy only whole: --limit on a composite is refused naming the flag', () => {
    const scenario = parseScenario(FILE('[{ limit: 20, window: 1s }, { limit: 1000, window: 1h }]'));
    expect(thrown(() => withOverrides(scenario, { limit: 5 })).message).toMatch(/^--limit: tiny has several limits/);
    const replaced = withOverrides(scenario, { policy: { limit: 5, windowMs: 1000 } });
    expect([replaced.policy, replaced.limits, replaced.watched]).toEqual([
      { limit: 5, windowMs: 1000 },
      undefined,
      scenario.limits,
    ]);
  });
});

describe('built-in composite-burst-and-hour: why one limit is not enough', () => {
  const scenario = builtinScenarios().find((s) => s.name === 'composite-burst-and-hour');
  if (!scenario) throw new Error('the built-in composite-burst-and-hour is missing');
  /** The sliding log (exact) under `policy`, with the scenario's own limits measured. */
  const replayUnder = async (policy: PolicyInput) => {
    const workload = scenarioWorkload(withOverrides(scenario, { policy }));
    const [result] = await compareWorkloads([workload], {
      contenders: (input) => [builtinContender('sliding-log', input)],
      measure: false,
    });
    const limits = result?.rows[0]?.limits ?? [];
    return Object.fromEntries(limits.map((limit) => [limit.name, limit.worstWindow?.units ?? 0]));
  };

  it('a single 1,000/h lets 1,000 through in one second', async () => {
    expect((await replayUnder({ limit: 1000, windowMs: HOUR }))['1s']).toBeGreaterThanOrEqual(1000);
  });

  it('a single 20/s lets through far more than 1,000 in an hour, bounded only by 72,000', async () => {
    const hour = (await replayUnder({ limit: 20, windowMs: 1000 }))['1h'] as number;
    expect(hour).toBeGreaterThan(2 * 1000);
    expect(hour).toBeLessThanOrEqual(20 * 3600);
  });

  it('the composite 20/1s,1000/1h holds both', async () => {
    expect(await replayUnder(BURST_AND_HOUR)).toEqual({ '1s': 20, '1h': 1000 });
  });
});

describe('ratelab compare --policy: CSV and JSON carry each limit', () => {
  const run = async (flags: Parameters<typeof compareCommand>[0]) => {
    const io = bufferIO({ cwd: ROOT });
    const code = await compareCommand(
      { measure: false, chart: false, algorithms: 'sliding-log,fixed-window', ...flags },
      io,
    );
    return { code, out: io.out(), err: io.err() };
  };

  it('CSV: the limit_worst_windows column, per limit name=limit/window_ms/ratio', async () => {
    const { code, out } = await run({ scenarios: ['edge-attack'], policy: '100/1s,150/10s', csv: '-' });
    expect(code).toBe(0);
    const [header, ...rows] = out.trim().split('\r\n');
    expect(header?.endsWith(',labels,limit_worst_windows')).toBe(true);
    expect(rows.map((row) => row.split(',').at(-1))).toEqual([
      expect.stringMatching(/^1s=100\/1000\/[\d.]+;10s=150\/10000\/[\d.]+$/),
      expect.stringMatching(/^1s=100\/1000\/[\d.]+;10s=150\/10000\/[\d.]+$/),
    ]);
  });

  it('JSON: each row lists its limits with their own worst windows; the scenario its limits', async () => {
    const { out } = await run({ scenarios: ['edge-attack'], policy: '100/1s,150/10s', json: '-' });
    const report = JSON.parse(out) as {
      scenarios: { limits: unknown[] }[];
      rows: { worstWindowRatio: number; limits: { name: string; ratio: number }[] }[];
    };
    expect(report.scenarios[0]?.limits).toEqual([
      { limit: 100, windowMs: 1000 },
      { limit: 150, windowMs: 10_000 },
    ]);
    for (const row of report.rows) {
      expect(row.limits.map((limit) => limit.name)).toEqual(['1s', '10s']);
      expect(row.worstWindowRatio).toBe(Math.max(...row.limits.map((limit) => limit.ratio)));
    }
  });

  it('a single policy adds no column and no field', async () => {
    const { out } = await run({ scenarios: ['edge-attack'], policy: '100/1s', csv: '-' });
    expect(out.split('\r\n')[0]?.endsWith(',labels')).toBe(true);
  });

  it.each([
    [{ policy: '100/1s', limit: '5' }, '--policy: give either --policy or --limit, not both'],
    [{ policy: '100/1s,50/1z' }, '--policy entry 2 ("50/1z"): expected a duration'],
    [{ policy: '100/1s,200/1m', limiter: './x.mjs' }, '--limiter: ./x.mjs is given one policy'],
  ])('%j is refused, exit 2', async (flags, message) => {
    const { code, err } = await run({ scenarios: ['edge-attack'], ...flags }).catch((error: RatelabError) => ({
      code: exitCodeOf(error.code),
      out: '',
      err: error.message,
    }));
    expect(code).toBe(2);
    expect(err).toContain(message);
  });
});

describe('commands that simulate one limit refuse a composite scenario', () => {
  it('ratelab distributed composite-burst-and-hour: exit 2 naming the scenario', async () => {
    const { run } = await import('../../src/cli/main.js');
    const io = bufferIO({ cwd: ROOT });
    expect(await run(['distributed', 'composite-burst-and-hour'], io)).toBe(2);
    expect(io.err()).toContain('composite-burst-and-hour has a composite policy (2 limits)');
  });
});
