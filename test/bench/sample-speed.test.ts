import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileBatch, type LoopState } from '../../src/bench/batch-loop.js';
import type { TaskMeasurement } from '../../src/bench/measure-child.js';
import { WALL_CLOCK_NOTE } from '../../src/bench/runner.js';
import { speedsOf } from '../../src/bench/sample-speed.js';
import { sampleSpec, sampleTape, type SampleSpec } from '../../src/bench/sample-workload.js';
import { createDecide, type Decide, type SubjectSpec } from '../../src/bench/subjects.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLimiter } from '../../src/memory/limiter.js';
import { builtinScenarios } from '../../src/scenario/builtins.js';
import { compareWorkloads } from '../../src/sim/compare.js';
import { builtinContender, moduleContender } from '../../src/sim/contender.js';
import { scenarioWorkload } from '../../src/sim/workload.js';

const arrivals = (list: Array<[number, string, number]>) => list.map(([t, key, cost]) => ({ t, key, cost }));

/** The tape loop over `spec`, `size` arrivals a batch, deciding with `decide(state)`; and its state. */
async function tapeBatch(spec: SampleSpec, size: number, decide: (state: LoopState) => Decide | Promise<Decide>) {
  const { sequence, tape } = sampleTape(spec);
  const state: LoopState = { now: 0, position: 0, decided: 0, admitted: 0 };
  const batch = compileBatch({
    decide: await decide(state),
    keys: spec.keys,
    sequence,
    state,
    stepMs: 0,
    isAsync: false,
    name: 't',
    size,
    tape,
  });
  return { batch, state };
}

/** Decisions `subject` admits in each of `laps` laps of `spec`, each lap one batch of `size` arrivals. */
async function admittedPerLap(subject: SubjectSpec, spec: SampleSpec, size: number, laps: number): Promise<number[]> {
  const { batch, state } = await tapeBatch(spec, size, (loop) => createDecide(subject, spec.policy, () => loop.now));
  const perLap: number[] = [];
  for (let lap = 0; lap < laps; lap++) {
    const before = state.admitted;
    await batch();
    perLap.push(state.admitted - before);
  }
  return perLap;
}

describe('sampleSpec: a replay sample as a workload replayed in laps', () => {
  it.each([
    // policy, arrivals' times, lap: span + quiet (2 windows, or burst/limit windows), in whole windows
    [{ limit: 10, windowMs: 1000 }, [0, 500, 999], 3000],
    [{ limit: 10, windowMs: 1000 }, [1500, 2600], 4000],
    [{ limit: 10, windowMs: 1000, burst: 50 }, [0, 100], 6000],
    [{ limit: 5, windowMs: 60 }, [7, 8], 180],
  ])('under %j, arrivals at %j repeat every %i ms', (policy, times, periodMs) => {
    const spec = sampleSpec(
      's',
      policy,
      times.map((t) => ({ t, key: 'k', cost: 1 })),
    );
    expect(spec.periodMs).toBe(periodMs);
  });

  it.each([
    // limits, arrivals' times, lap: the longest quiet, in whole multiples of every window
    [
      [
        { limit: 20, windowMs: 1000 },
        { limit: 1000, windowMs: 3_600_000 },
      ],
      [0, 500],
      10_800_000,
      'the hour forgets in 2 h',
    ],
    [
      [
        { limit: 5, windowMs: 60 },
        { limit: 7, windowMs: 90 },
      ],
      [0, 10],
      360,
      '2 x 90 quiet, in multiples of 180',
    ],
    [
      [
        { limit: 10, windowMs: 1000, burst: 50 },
        { limit: 100, windowMs: 2000 },
      ],
      [0],
      6000,
      'the burst refills in 5 s',
    ],
  ])('enforced by %j, arrivals at %j repeat every %i ms (%s)', (limits, times, periodMs) => {
    const spec = sampleSpec(
      's',
      limits[0] as (typeof limits)[number],
      times.map((t) => ({ t, key: 'k', cost: 1 })),
      limits,
    );
    expect(spec.periodMs).toBe(periodMs);
    expect(spec.policy).toEqual(limits[0]);
  });

  it('numbers keys by first arrival and keeps times and costs', () => {
    const spec = sampleSpec(
      's',
      { limit: 10, windowMs: 1000 },
      arrivals([
        [0, 'b', 1],
        [1, 'a', 3],
        [1, 'b', 2],
      ]),
    );
    expect(spec).toMatchObject({ keys: ['b', 'a'], sequence: [0, 1, 0], times: [0, 1, 1], costs: [1, 3, 2] });
  });
});

describe('the tape loop', () => {
  it('decides each arrival at its time and cost, each lap one period later', async () => {
    const spec = sampleSpec(
      's',
      { limit: 10, windowMs: 100 },
      arrivals([
        [0, 'a', 1],
        [40, 'b', 2],
      ]),
    );
    const seen: Array<[string, number, number]> = [];
    const { batch, state } = await tapeBatch(spec, 5, (loop) => (key, cost) => {
      seen.push([key, cost, loop.now]);
      return true;
    });
    await batch();
    expect(seen).toEqual([
      ['a', 1, 0],
      ['b', 2, 40],
      ['a', 1, 300],
      ['b', 2, 340],
      ['a', 1, 600],
    ]);
    expect(state).toMatchObject({ decided: 5, admitted: 5, position: 1 });
  });

  it.each(['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'] as const)(
    '%s decides every lap as it decided the first',
    async (algorithm) => {
      // A full quota before a window edge and another after it: the algorithms differ here.
      const times = [...Array.from({ length: 10 }, () => 990), ...Array.from({ length: 10 }, () => 1000)];
      const spec = sampleSpec(
        'edge',
        { limit: 10, windowMs: 1000 },
        times.map((t) => ({ t, key: 'k', cost: 1 })),
      );
      const perLap = await admittedPerLap({ kind: 'algorithm', algorithm }, spec, times.length, 4);
      expect(new Set(perLap).size).toBe(1);
    },
  );

  it.each(['token-bucket', 'gcra', 'sliding-log', 'sliding-counter', 'fixed-window'] as const)(
    '%s under two limits decides every lap as the composite decides the sample once',
    async (algorithm) => {
      // 30 requests a second for 3 s against 20/1s and 45/3s: the windows deny under both limits.
      const limits = [
        { limit: 20, windowMs: 1000 },
        { limit: 45, windowMs: 3000 },
      ];
      const times = Array.from({ length: 90 }, (_, i) => Math.floor(i / 30) * 1000 + (i % 30));
      const spec = sampleSpec(
        'two',
        limits[0] as (typeof limits)[number],
        times.map((t) => ({ t, key: 'k', cost: 1 })),
        limits,
      );
      const perLap = await admittedPerLap({ kind: 'algorithm', algorithm, limits }, spec, times.length, 3);
      const clock = new ManualClock(0);
      const once = createLimiter(algorithm, limits, { clock });
      let admitted = 0;
      for (const t of times) {
        clock.set(t);
        if (once.allow('k')) admitted++;
      }
      expect(perLap).toEqual([admitted, admitted, admitted]);
    },
  );
});

describe('speedsOf: the figures of a measuring child', () => {
  const task = (rates: number[]): TaskMeasurement => ({ rates, p50Ns: 1, p99Ns: 1, admitted: 1 });

  it('gives the median of the per-round ratios to the reference timed in the same round', () => {
    // Medians of the rates alone would give 300 / 300 = 1; round by round it is 2, 0.5, 2.
    const speeds = speedsOf({
      workloads: [{ workload: '0', subject: task([200, 300, 400]), reference: task([100, 600, 200]) }],
    });
    expect(speeds.speeds).toEqual([{ workload: '0', opsPerSec: 300, speedRatio: 2 }]);
    expect(speeds.note).toBeUndefined();
  });

  it("carries bench's wall-clock note for a subject that never read the clock it was given", () => {
    expect(speedsOf({ workloads: [], readsClock: false }).note).toBe(WALL_CLOCK_NOTE);
  });
});

describe('compare fills decisions/s and the ratio to the reference from measuring children', () => {
  const dir = mkdtempSync(join(tmpdir(), 'ratelab-speed-'));
  const module = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  };
  const edge = scenarioWorkload(builtinScenarios().find((s) => s.name === 'edge-attack') as never);
  const speed = { rounds: 2, roundMs: 1, warmUpBatches: 1, processes: 2 };
  const run = (path: string) =>
    compareWorkloads([edge], {
      contenders: async (policy) => [
        builtinContender('token-bucket', policy),
        await moduleContender(path, policy, dir),
      ],
      memoryKeys: 100,
      speed,
    });

  it('measures a limiter module in a process of its own, beside the built-ins', async () => {
    const pids = join(dir, 'pids.txt');
    const path = module(
      'pid-limiter.mjs',
      `import { appendFileSync } from 'node:fs';
export default function (policy, { clock }) {
  appendFileSync(${JSON.stringify(pids)}, process.pid + '\\n');
  return { consume: () => clock() >= 0 };
}`,
    );
    const [result] = await run(path);
    for (const row of result?.rows ?? []) {
      expect(row.opsPerSec).toBeGreaterThan(0);
      expect(row.speedRatio).toBeGreaterThan(0);
    }
    const processes = new Set(readFileSync(pids, 'utf8').trim().split('\n').map(Number));
    expect([...processes].filter((pid) => pid !== process.pid).length).toBeGreaterThanOrEqual(1);
    expect(result?.notes).toEqual([]);
  });

  it('leaves the figures null with a note when the measuring child fails', async () => {
    // Works in this process (the replay), throws in any other (the measuring child).
    const path = module(
      'breaks-elsewhere.mjs',
      `export default function (policy, { clock }) {\n  if (process.pid !== ${process.pid}) throw new Error('not here');\n  return { consume: () => true };\n}`,
    );
    const [result] = await run(path);
    const [builtin, mine] = result?.rows ?? [];
    expect(builtin?.speedRatio).toBeGreaterThan(0);
    expect(mine).toMatchObject({ opsPerSec: null, speedRatio: null });
    // (the memory probe, in a child of its own, fails too and says so apart)
    expect(result?.notes).toContainEqual(
      expect.stringMatching(/^breaks-elsewhere\.mjs: decisions\/s not measured, .*its factory threw: not here$/),
    );
  });

  it('says so when a module reads wall time instead of the clock it is given', async () => {
    const path = module(
      'wall-clock.mjs',
      'export default function () {\n  return { consume: () => Date.now() % 2 === 0 };\n}',
    );
    const [result] = await run(path);
    expect(result?.rows[1]?.speedRatio).toBeGreaterThan(0);
    expect(result?.notes).toContain(`wall-clock.mjs: decisions/s ${WALL_CLOCK_NOTE}`);
  });

  it('measures nothing with measure: false', async () => {
    const [result] = await compareWorkloads([edge], {
      contenders: (policy) => [builtinContender('gcra', policy)],
      measure: false,
    });
    expect(result?.rows[0]).toMatchObject({ opsPerSec: null, speedRatio: null });
  });
});
