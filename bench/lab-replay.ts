// The replay engine's overhead: `replay` (lazy generation, k-way merge, virtual clock, exact
// oracle, worst window, fairness, timeline) against a bare loop that calls the same limiter
// over the same arrivals, pre-generated into arrays. Both measured in this run, alternating,
// median of several rounds; the ratio is the figure (target: at most 3x).
//
//   npx tsx bench/lab-replay.ts            (three workloads of 500,000 arrivals)
//   npx tsx bench/lab-replay.ts poisson    (built-in scenarios by name instead)
import { createLimiter } from '../src/limiter.js';
import { ALGORITHMS, type Algorithm } from '../src/policy.js';
import { builtinScenarios } from '../src/scenario/builtins.js';
import { parseScenario } from '../src/scenario/load-scenario.js';
import type { Scenario } from '../src/scenario/scenario.js';
import { builtinContender } from '../src/sim/contender.js';
import { replay } from '../src/sim/replay.js';
import { openScenario } from '../src/traffic/stream.js';

const ROUNDS = 5;

/** Workloads big enough to time (the built-ins are mostly a few thousand arrivals). */
const WORKLOADS = [
  ['hot-key', 'keys: hot'],
  ['uniform-1e4-keys', 'keys: { count: 10000, pick: uniform }'],
  ['zipf-1e5-keys', 'keys: { count: 100000, pick: zipf }'],
].map(([name, keys]) =>
  parseScenario(`name: ${name}\ndescription: bench\npolicy: { limit: 100, window: 1s }\nduration: 5s\nseed: 1\nsources:\n  - kind: poisson\n    rate: 100/ms\n    ${keys}\n`, name as string),
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

function bareLoop(algorithm: Algorithm, scenario: Scenario, events: Events): number {
  const time = { now: 0 };
  const limiter = createLimiter(algorithm, scenario.policy, { clock: () => time.now });
  const { times, keys, costs } = events;
  let admitted = 0;
  const start = performance.now();
  for (let i = 0; i < times.length; i++) {
    time.now = times[i] as number;
    if (limiter.consume(keys[i] as string, costs[i] as number).allowed) admitted += 1;
  }
  const elapsed = performance.now() - start;
  if (admitted < 0) throw new Error('unreachable');
  return elapsed;
}

async function engine(algorithm: Algorithm, scenario: Scenario): Promise<number> {
  const start = performance.now();
  const { policy } = scenario;
  await replay(builtinContender(algorithm, policy), openScenario(scenario), { limit: policy.limit, windowMs: policy.windowMs, bucketMs: scenario.bucketMs, originMs: 0, minBuckets: Math.ceil(scenario.durationMs / scenario.bucketMs) });
  return performance.now() - start;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

const names = process.argv.slice(2);
const scenarios = names.length === 0 ? WORKLOADS : builtinScenarios().filter((s) => names.includes(s.name));
console.log(`node ${process.version}, ${ROUNDS} alternating rounds, median ms; ratio = engine / bare loop (target <= 3x)`);
console.log('scenario               algorithm        events    bare ms  engine ms  ratio');
let worst = 0;
for (const scenario of scenarios) {
  const events = pregenerate(scenario);
  for (const algorithm of ALGORITHMS) {
    const bare: number[] = [];
    const full: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      bare.push(bareLoop(algorithm, scenario, events));
      full.push(await engine(algorithm, scenario));
    }
    const ratio = median(full) / median(bare);
    worst = Math.max(worst, ratio);
    console.log(`${scenario.name.padEnd(22)} ${algorithm.padEnd(16)} ${String(events.times.length).padStart(7)}  ${median(bare).toFixed(1).padStart(8)}  ${median(full).toFixed(1).padStart(9)}  ${ratio.toFixed(2).padStart(5)}x`);
  }
}
console.log(`worst ratio: ${worst.toFixed(2)}x (target <= 3x): ${worst <= 3 ? 'met' : 'NOT met'}`);
