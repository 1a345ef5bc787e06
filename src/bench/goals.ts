import type { BenchRun, Figure } from './bench-run.js';

/** The algorithms whose speed and memory goals are O(1) per key. */
const CONSTANT_STATE = ['token-bucket', 'fixed-window', 'sliding-counter', 'gcra'] as const;
/** Workloads the speed goals are stated on. */
const GOAL_WORKLOADS = ['hot-key', 'keys-1e4'] as const;
const PEER = 'rate-limiter-flexible';

/** Speed and memory targets of ratelab itself (issue 4), checked against a run. */
export interface GoalCheck {
  goal: string;
  target: string;
  actual: string;
  /** undefined when the run did not measure it. */
  met: boolean | undefined;
}

/**
 * Evaluates the goals on `run`:
 * - token bucket, fixed window, sliding counter, GCRA: ratio to the reference >= 1.0 on one
 *   hot key and on 1e4 keys, and >= 3x rate-limiter-flexible's decisions/s there;
 * - memory per key (state, without the key string): those four <= 60 B; the sliding log
 *   <= 8 B per slot of its limit + 64 B (`memoryLimit` is the probe's policy limit).
 */
export function checkGoals(run: BenchRun, memoryLimit: number): GoalCheck[] {
  const figure = (name: string) => run.figures.find((f) => f.name === name);
  const checks: GoalCheck[] = [];
  for (const algorithm of CONSTANT_STATE) {
    for (const workload of GOAL_WORKLOADS) {
      const mine = figure(`${algorithm}/${workload}`);
      checks.push(atLeast(`${algorithm} on ${workload}: x reference`, mine?.ratio, 1));
      const peer = figure(`${PEER}/${workload}`);
      const versus = mine && peer && peer.value > 0 ? mine.value / peer.value : undefined;
      checks.push(atLeast(`${algorithm} on ${workload}: x ${PEER}`, versus, 3));
    }
    checks.push(atMost(`${algorithm} memory per key`, figure(`${algorithm}/memory`), 60));
  }
  checks.push(atMost(`sliding-log memory per key (limit ${memoryLimit})`, figure('sliding-log/memory'), 8 * memoryLimit + 64));
  return checks;
}

function atLeast(goal: string, actual: number | undefined, target: number): GoalCheck {
  if (actual === undefined) return { goal, target: `>= ${target}`, actual: '', met: undefined };
  return { goal, target: `>= ${target}`, actual: actual.toFixed(2), met: actual >= target };
}

function atMost(goal: string, memory: Figure | undefined, bytes: number): GoalCheck {
  if (memory === undefined) return { goal, target: `<= ${bytes} B`, actual: '', met: undefined };
  return { goal, target: `<= ${bytes} B`, actual: `${memory.value.toFixed(1)} B`, met: memory.value <= bytes };
}
