// The replay engine's overhead against a bare loop that calls the same limiters directly
// over the same arrivals, pre-generated into arrays (target: at most 3x). Measured in one
// run, alternating engine and bare rounds, median of several rounds; the ratio is the figure.
//
// What `ratelab compare` runs for an open-loop workload: ONE lockstep replay of all five
// algorithms (`replayLockstep`: lazy generation, k-way merge, one exact-oracle verdict per
// arrival, then each limiter on its own virtual clock, worst window, fairness, timeline per
// algorithm). Its baseline: the five bare loops, one per algorithm, over the pre-generated
// events, summed. That is the "lockstep" row.
//
// What a closed-loop workload (retry clients, a stream per limiter) and `replay()` run:
// one replay per algorithm, against that algorithm's bare loop. Those are the rows named
// for an algorithm, shown with `--single` (they also bound what lockstep saves).
//
// An open-loop replay of a built-in asks each limiter only whether it admits
// (`Decider.admits`: `allow(key)`, no Decision built); the bare loops call the same. The
// `consume ms` column times the same lockstep replay with limiters that have only
// `consume()` (as a user's module has): `admits/consume`
// is what the shortcut saves, measured in the same run.
//
//   npx tsx bench/lab-replay.ts                   (three workloads of 500,000 arrivals)
//   npx tsx bench/lab-replay.ts --single          (and each algorithm alone)
//   npx tsx bench/lab-replay.ts poisson ...       (built-in scenarios by name instead)
import { createLimiter } from '../src/memory/limiter.js';
import { ALGORITHMS, type Algorithm } from '../src/core/policy.js';
import { builtinScenarios } from '../src/scenario/builtins.js';
import { parseScenario } from '../src/scenario/load-scenario.js';
import type { Scenario } from '../src/scenario/scenario.js';
import { builtinContender, type Contender } from '../src/sim/contender.js';
import { replayLockstep, type ReplayOptions } from '../src/sim/replay.js';
import { openScenario } from '../src/traffic/stream.js';
import { median } from 'simple-statistics';

const ROUNDS = 5;

/** Workloads big enough to time (the built-ins are mostly a few thousand arrivals). */
const WORKLOADS = [
  ['hot-key', 'keys: hot'],
  ['uniform-1e4-keys', 'keys: { count: 10000, pick: uniform }'],
  ['zipf-1e5-keys', 'keys: { count: 100000, pick: zipf }'],
].map(([name, keys]) =>
  parseScenario(
    `name: ${name}\ndescription: bench\npolicy: { limit: 100, window: 1s }\nduration: 5s\nseed: 1\nsources:\n  - kind: poisson\n    rate: 100/ms\n    ${keys}\n`,
    name as string,
  ),
);

interface Events {
  times: Float64Array;
  keys: string[];
  costs: Uint32Array;
}

function pregenerate(scenario: Scenario): Events {
  const times: number[] = [];
  const keys: string[] = [];
  const costs: number[] = [];
  const stream = openScenario(scenario);
  for (let a = stream.next(); a; a = stream.next()) {
    times.push(a.t);
    keys.push(a.key);
    costs.push(a.cost);
  }
  return { times: Float64Array.from(times), keys, costs: Uint32Array.from(costs) };
}

/** ms for a fresh limiter of each of `algorithms`, one after another, over all of `events`. */
function bareLoops(algorithms: readonly Algorithm[], scenario: Scenario, events: Events): number {
  let elapsed = 0;
  for (const algorithm of algorithms) {
    const time = { now: 0 };
    const limiter = createLimiter(algorithm, scenario.policy, { clock: () => time.now });
    const { times, keys, costs } = events;
    let admitted = 0;
    const start = performance.now();
    for (let i = 0; i < times.length; i++) {
      time.now = times[i] as number;
      const cost = costs[i] as number;
      if (cost === 1 ? limiter.allow(keys[i] as string) : limiter.consume(keys[i] as string, cost).allowed)
        admitted += 1;
    }
    elapsed += performance.now() - start;
    if (admitted < 0) throw new Error('unreachable');
  }
  return elapsed;
}

/** A built-in limiter offering only `consume()`, as the replay saw it before `admits`. */
function consumeOnly(algorithm: Algorithm, policy: Scenario['policy']): Contender {
  return { ...builtinContender(algorithm, policy), create: (clock) => createLimiter(algorithm, policy, { clock }) };
}

/**
 * ms for the engine: one lockstep replay of `algorithms` over a fresh stream, with all
 * metrics; with `viaConsume`, through limiters offering only `consume()`.
 */
async function engine(algorithms: readonly Algorithm[], scenario: Scenario, viaConsume = false): Promise<number> {
  const { policy } = scenario;
  const options: ReplayOptions = {
    limit: policy.limit,
    windowMs: policy.windowMs,
    bucketMs: scenario.bucketMs,
    originMs: 0,
    minBuckets: Math.ceil(scenario.durationMs / scenario.bucketMs),
  };
  const start = performance.now();
  const contenders = algorithms.map((algorithm) => (viaConsume ? consumeOnly : builtinContender)(algorithm, policy));
  await replayLockstep(contenders, openScenario(scenario), options);
  return performance.now() - start;
}

const args = process.argv.slice(2);
const single = args.includes('--single');
const names = args.filter((arg) => !arg.startsWith('--'));
const scenarios = names.length === 0 ? WORKLOADS : builtinScenarios().filter((s) => names.includes(s.name));
console.log(
  `node ${process.version}, ${ROUNDS} alternating rounds, median ms; ratio = engine / bare loop(s) (target <= 3x)`,
);
console.log('lockstep: one replay of all five algorithms against the sum of their five bare loops');
console.log('scenario               contenders       events    bare ms  engine ms  ratio  consume ms  admits/consume');
let worst = 0;
for (const scenario of scenarios) {
  const events = pregenerate(scenario);
  const sets: [string, readonly Algorithm[]][] = [['lockstep', ALGORITHMS]];
  if (single) for (const algorithm of ALGORITHMS) sets.push([algorithm, [algorithm]]);
  for (const [label, algorithms] of sets) {
    const bare: number[] = [];
    const full: number[] = [];
    const viaConsume: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(bareLoops(algorithms, scenario, events));
      full.push(await engine(algorithms, scenario));
      viaConsume.push(await engine(algorithms, scenario, true));
    }
    const ratio = median(full) / median(bare);
    if (label === 'lockstep') worst = Math.max(worst, ratio);
    const saved = median(full) / median(viaConsume);
    console.log(
      `${scenario.name.padEnd(22)} ${label.padEnd(16)} ${String(events.times.length).padStart(7)}  ${median(bare).toFixed(1).padStart(8)}  ${median(full).toFixed(1).padStart(9)}  ${ratio.toFixed(2).padStart(5)}x  ${median(viaConsume).toFixed(1).padStart(10)}  ${saved.toFixed(2).padStart(13)}x`,
    );
  }
}
console.log(`worst lockstep ratio: ${worst.toFixed(2)}x (target <= 3x): ${worst <= 3 ? 'met' : 'NOT met'}`);
